/**
 * Failed client authentications slow down per client and address (20 a minute; docs/credentials.md): checked
 * before the client's secret is looked at, counted when it was wrong — the engine's 401 invalid_client at the
 * token and revocation endpoints, or introspection's own. One step for all three endpoints.
 */
import type { RateLimits } from '../../domain/rate-limits.js';
import { ProtocolError } from '../../errors.js';
import type { EndpointContext, Step } from './state.js';

const refusedClient = (ctx: EndpointContext, error: unknown) =>
  (error instanceof ProtocolError && error.error === 'invalid_client') ||
  (ctx.status === 401 && (ctx.body as { error?: string } | undefined)?.error === 'invalid_client');

export function limitClientAuth(limits: RateLimits): Step {
  return async function limitClientAuth(ctx, next) {
    const key = `${ctx.state.credentials?.clientId}|${ctx.ip}`;
    const limited = await limits.check([['client_auth', key]]);
    if (!limited.allowed) {
      const wait = limited.retryAfterSeconds;
      throw new ProtocolError(429, 'invalid_client', `too many failed client authentications; try again in ${wait} s`, {
        'Retry-After': String(wait),
      });
    }
    let failure: unknown;
    try {
      await next();
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      if (refusedClient(ctx, failure)) await limits.attempt([['client_auth', key]]);
    }
  };
}
