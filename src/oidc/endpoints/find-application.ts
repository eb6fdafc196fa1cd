/**
 * The shared endpoints find the application whose provider answers: by the client_id of an authorization request,
 * by the calling client (token, revocation), or by the client the access token was issued to (UserInfo).
 */
import type { Store } from '../../store/contract.js';
import { PageError, ProtocolError } from '../../errors.js';
import { formOf, readClientCredentials } from '../read-client.js';
import type { ProviderSet } from '../providers.js';
import { unitOfWorkOf } from '../engine-storage/unit-of-work.js';
import type { EndpointContext, Step } from './state.js';

const unknownClient = () =>
  new PageError(400, {
    title: 'error.sign_in.title',
    heading: 'error.sign_in.heading',
    message: 'error.sign_in.unknown_client',
    code: 'invalid_client',
  });

const invalidToken = () =>
  new ProtocolError(401, 'invalid_token', 'invalid token provided', {
    'WWW-Authenticate': 'Bearer error="invalid_token", error_description="invalid token provided"',
  });

/** The parameters of an authorization request: the query of a GET, the form of a POST (OIDC Core §3.1.2.1). */
export const authorizationParams = async (ctx: EndpointContext) => (ctx.method === 'POST' ? await formOf(ctx) : ctx.query);

/** An authorization request names its client in client_id; an unknown one gets a page, never a redirect (RFC 6749 §4.1.2.1). */
export function findAuthorizingClient(providers: ProviderSet): Step {
  return async function findAuthorizingClient(ctx, next) {
    const { client_id: clientId } = await authorizationParams(ctx);
    const application = typeof clientId === 'string' ? providers.byClientId.get(clientId) : undefined;
    if (!application) throw unknownClient();
    ctx.state.application = application;
    return next();
  };
}

/** The caller of the token and revocation endpoints, by HTTP Basic or the form; its provider authenticates it. */
export function findCallingClient(providers: ProviderSet): Step {
  return async function findCallingClient(ctx, next) {
    ctx.state.credentials = await readClientCredentials(ctx);
    const { clientId } = ctx.state.credentials;
    const application = clientId === undefined ? undefined : providers.byClientId.get(clientId);
    if (!application) throw new ProtocolError(401, 'invalid_client', 'client authentication failed');
    ctx.state.application = application;
    return next();
  };
}

/** The caller of the introspection endpoint: only read here; introspect.ts authenticates it (after the limit). */
export async function readCaller(ctx: EndpointContext, next: () => Promise<void>): Promise<void> {
  ctx.state.credentials = await readClientCredentials(ctx);
  return next();
}

/** The access token of a UserInfo request: Bearer (RFC 6750) or DPoP (RFC 9449) in the header, or a POSTed form (§2.2). */
async function accessTokenOf(ctx: EndpointContext): Promise<string | undefined> {
  const header = /^(?:Bearer|DPoP)\s+(\S+)$/i.exec(ctx.get('Authorization'))?.[1];
  if (header) return header;
  const form = ctx.method === 'POST' ? await formOf(ctx) : {};
  return typeof form.access_token === 'string' ? form.access_token : undefined;
}

/** UserInfo: the application the access token was issued to. The engine then gets this row instead of reading it again. */
export function findTokenApplication(providers: ProviderSet, store: Store): Step {
  return async function findTokenApplication(ctx, next) {
    const accessToken = await accessTokenOf(ctx);
    const row = accessToken ? await store.oidcPayloads.find('AccessToken', accessToken, new Date()) : undefined;
    const application = row?.client_id ? providers.byClientId.get(row.client_id) : undefined;
    if (!application) throw invalidToken();
    unitOfWorkOf(store, ctx).handOver(row!);
    ctx.state.application = application;
    return next();
  };
}
