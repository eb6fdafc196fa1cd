/**
 * API tokens for the provisioning API: 32 random bytes shown once, stored as SHA-256 (a fast hash is right
 * for high-entropy secrets; the lookup by hash leaks nothing useful about the token).
 */
import { UUID } from '../uuid.js';
import { createHash, randomBytes } from 'node:crypto';
import type { ApiTokenRow, Store } from '../store/contract.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { audit } from './audit.js';

/**
 * `scim` is the SCIM server (/scim/v2): reading and writing users and groups as a provisioning client does.
 * `admin` manages API tokens and signing keys (/api/v3/admin): whoever holds it can mint any token. Scopes are
 * stored per token, so adding one here widens no existing token; only a bootstrap token made after it has it.
 */
export const API_SCOPES = [
  'users:read',
  'users:write',
  'groups:read',
  'groups:write',
  'events:read',
  'events:write',
  'audit:read',
  'scim',
  'admin',
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

const PREFIX = 'idp_';
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
export const generateToken = () => PREFIX + randomBytes(32).toString('base64url');

export interface NewApiToken {
  name: string;
  scopes: string[];
  expiresAt?: Date | null;
  /** A caller-chosen secret (the bootstrap token); generated when omitted. */
  token?: string;
}

export async function createApiToken(store: Store, input: NewApiToken): Promise<{ token: string; row: ApiTokenRow }> {
  const unknown = input.scopes.filter((scope) => !(API_SCOPES as readonly string[]).includes(scope));
  if (unknown.length) throw new ValidationError({ scopes: [`Unknown scope: ${unknown.join(', ')}. Known: ${API_SCOPES.join(', ')}.`] });
  if (!input.scopes.length) throw new ValidationError({ scopes: ['Give at least one scope.'] });
  if (!input.name.trim()) throw new ValidationError({ name: ['A name is required.'] });
  const token = input.token ?? generateToken();
  return store.transaction(async (tx) => {
    const row = await tx.apiTokens.insert({
      name: input.name.trim(),
      token_hash: hashToken(token),
      scopes: [...new Set(input.scopes)],
      expires_at: input.expiresAt ?? null,
    });
    await audit(tx, 'api_token.created', { details: { token: row.id, name: row.name, scopes: row.scopes } });
    return { token, row };
  });
}

/** When this process last recorded each token's use: skips a write per request (the store keeps once a minute too). */
const lastTouched = new Map<string, number>();
const TOUCH_EVERY_MS = 60_000;

/** The usable token behind a presented secret, or undefined. Revocation counts at once: the row is read every time. */
export async function authenticateApiToken(store: Store, token: string, now = new Date()): Promise<ApiTokenRow | undefined> {
  const row = await store.apiTokens.findUsable(hashToken(token), now);
  if (row && now.getTime() - (lastTouched.get(row.id) ?? 0) >= TOUCH_EVERY_MS) {
    lastTouched.set(row.id, now.getTime());
    await store.apiTokens.touch(row.id, now);
  }
  return row;
}

export async function revokeApiToken(store: Store, id: string): Promise<void> {
  if (!UUID.test(id)) throw new NotFoundError('API token');
  await store.transaction(async (tx) => {
    if (!(await tx.apiTokens.revoke(id, new Date()))) throw new NotFoundError('API token');
    await audit(tx, 'api_token.revoked', { details: { token: id } });
  });
}

/**
 * First start: exactly once per database, create an all-scope token: the configured one, or a generated one
 * that is returned so the caller can print it once.
 */
export async function ensureBootstrapToken(
  store: Store,
  configured: string,
): Promise<{ created: false } | { created: true; token: string; generated: boolean }> {
  return store.transaction(async (tx) => {
    if (!(await tx.state.claimOnce('bootstrap_token'))) return { created: false as const };
    const { token } = await createApiToken(tx, { name: 'bootstrap', scopes: [...API_SCOPES], token: configured || undefined });
    return { created: true as const, token, generated: !configured };
  });
}
