/**
 * Token introspection (RFC 7662) at the shared /application/o/introspect/. Ours rather than the engine's: an
 * API registered as its own application (`resource_server: true`) checks tokens issued to other applications,
 * which one engine instance (one client each) cannot see. The caller authenticates with its secret; the token's
 * own client and resource servers get the answer, anyone else `{"active": false}`. The access-group rule holds
 * here too: a user outside the token's application's group, or deactivated, makes the token inactive.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Store } from '../store/contract.js';
import { ProtocolError } from '../errors.js';
import { userAllowedIn } from '../domain/applications.js';
import { forEngine } from './engine-unavailable.js';
import { formOf, type ClientCredentials } from './read-client.js';
import type { AppProvider, ProviderSet } from './providers.js';

type EngineToken = {
  kind: string;
  isValid: boolean;
  clientId: string;
  accountId?: string;
  grantId?: string;
  scope?: string;
  exp: number;
  iat: number;
  jkt?: string;
  tokenType?: string;
};

/** The caller, when its client_id and secret are right (constant-time); public applications cannot introspect. */
export function authenticatedCaller(providers: ProviderSet, credentials: ClientCredentials): AppProvider | undefined {
  const entry = credentials.clientId === undefined ? undefined : providers.byClientId.get(credentials.clientId);
  if (!entry?.app.client_secret || credentials.secret === undefined) return undefined;
  // Digests first: equal lengths for a constant-time comparison whatever the caller sent.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(credentials.secret), digest(entry.app.client_secret)) ? entry : undefined;
}

async function findToken(caller: AppProvider, value: string, hint: unknown): Promise<EngineToken | undefined> {
  const { provider } = caller;
  const models = [provider.AccessToken, provider.ClientCredentials, provider.RefreshToken] as unknown as Array<{
    find(id: string): Promise<EngineToken | undefined>;
  }>;
  // The hint only orders the search (RFC 7662 §2.1).
  if (hint === 'refresh_token') models.unshift(models.pop()!);
  for (const model of models) {
    const token = await model.find(value);
    if (token) return token;
  }
  return undefined;
}

export function introspection(providers: ProviderSet, store: Store) {
  return async function introspect(ctx: Context, caller: AppProvider): Promise<void> {
    const form = await formOf(ctx);
    if (typeof form.token !== 'string' || !form.token) throw new ProtocolError(400, 'invalid_request', 'missing required parameter token');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await forEngine(() => answer(caller, form.token as string, form.token_type_hint));
  };

  async function answer(caller: AppProvider, value: string, hint: unknown): Promise<Record<string, unknown>> {
    const inactive = { active: false };
    const token = await findToken(caller, value, hint);
    if (!token?.isValid) return inactive;
    const owner = providers.byClientId.get(token.clientId);
    // By client_id, not by entry: a key reload (reload-keys.ts) may swap in a new entry for the same application mid-request.
    if (!owner || (owner.app.client_id !== caller.app.client_id && !caller.app.resource_server)) return inactive;
    if (token.grantId && !(await caller.provider.Grant.find(token.grantId))) return inactive;
    if (token.accountId) {
      if (!(await userAllowedIn(store, owner.app, token.accountId)).allowed) return inactive;
    }
    return {
      active: true,
      scope: token.scope,
      client_id: token.clientId,
      ...(token.accountId ? { sub: token.accountId } : {}),
      exp: token.exp,
      iat: token.iat,
      iss: owner.provider.issuer,
      ...(token.kind === 'RefreshToken' ? {} : { token_type: token.jkt ? 'DPoP' : 'Bearer' }),
      ...(token.jkt ? { cnf: { jkt: token.jkt } } : {}),
    };
  }
}
