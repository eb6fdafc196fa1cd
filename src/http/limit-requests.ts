/** Answers 429 with Retry-After once an API token has made `rate_limits.api_per_minute` requests this minute. */
import type { Context, Next } from 'koa';
import type { ApiTokenRow } from '../store/contract.js';
import type { RateLimits } from '../domain/rate-limits.js';
import { AppError } from '../errors.js';

export function limitRequests(limits: RateLimits) {
  return async function limitRequestsPerToken(ctx: Context, next: Next) {
    const token = ctx.state.apiToken as ApiTokenRow;
    const outcome = await limits.attempt([['api', token.id]]);
    if (!outcome.allowed) {
      const wait = outcome.retryAfterSeconds;
      throw new AppError(`Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.`, {
        status: 429,
        headers: { 'Retry-After': String(wait) },
      });
    }
    await next();
  };
}
