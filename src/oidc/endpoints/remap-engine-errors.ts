/**
 * The engine's errors, reworded where the spec or the RFCs name another code, by the error's class and the
 * request (never by its message; engine-errors.ts): this step rewrites the answer the engine rendered.
 * - A request without the openid scope is refused with invalid_scope, whatever else it carries (spec): the engine
 *   refuses some of them earlier (with nonce, max_age…) as invalid_request.
 * - A grant type the client may not use is unauthorized_client (RFC 6749 §5.2, RFC 8628 §3.1 for a device
 *   authorization); the engine says invalid_request.
 */
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { engineErrorOf } from '../engine-errors.js';
import { DEVICE_CODE_GRANT } from '../../domain/applications.js';
import type { Step } from './state.js';

const scopesOf = (ctx: KoaContextWithOIDC) => String(ctx.oidc?.params?.scope ?? '').split(' ');

function withoutOpenidIsInvalidScope(ctx: KoaContextWithOIDC, error: Error) {
  if (!(error instanceof errors.InvalidRequest) || scopesOf(ctx).includes('openid')) return;
  const location = ctx.status === 303 ? ctx.response.get('Location') : '';
  if (!location) return;
  const url = new URL(location);
  if (url.searchParams.get('error') !== 'invalid_request') return;
  url.searchParams.set('error', 'invalid_scope');
  ctx.set('Location', url.href);
}

function grantNotAllowedIsUnauthorizedClient(ctx: KoaContextWithOIDC, error: Error) {
  // A device authorization asks for the device_code grant without naming it.
  const grantType = ctx.oidc?.route === 'device_authorization' ? DEVICE_CODE_GRANT : ctx.oidc?.params?.grant_type;
  const client = ctx.oidc?.client;
  if (!(error instanceof errors.InvalidRequest) || typeof grantType !== 'string' || !client || client.grantTypeAllowed(grantType)) return;
  ctx.body = { ...(ctx.body as object), error: 'unauthorized_client' };
}

export const remapEngineErrors: Step = async function remapEngineErrors(ctx, next) {
  await next();
  const error = engineErrorOf(ctx);
  if (!error) return;
  withoutOpenidIsInvalidScope(ctx as unknown as KoaContextWithOIDC, error);
  grantNotAllowedIsUnauthorizedClient(ctx as unknown as KoaContextWithOIDC, error);
};
