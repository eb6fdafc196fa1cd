/**
 * Brute-force protection (rate-limiter-flexible). Every attempt is counted before it is checked, so parallel
 * guesses cannot slip past the limit; a correct password clears its account's counter. Counters live in
 * Redis; when Redis does not answer, attempts are refused (RateLimitUnavailable) rather than let through.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Settings } from '../settings/schema.js';

export type LimitKind = 'account' | 'ip' | 'interaction';

export class RateLimitUnavailable extends Error {
  override name = 'RateLimitUnavailable';
}

export type LimitOutcome = { allowed: true } | { allowed: false; kind: LimitKind; retryAfterSeconds: number };

export interface RateLimits {
  /** Counts one attempt under each key; refused when any of them is over its limit. */
  attempt(keys: Array<[LimitKind, string]>): Promise<LimitOutcome>;
  /** Forgets the counter (a correct password ends an account's run of failures). */
  reset(kind: LimitKind, key: string): Promise<void>;
}

/** Interaction counters outlive any sign-in (the engine's interactions last an hour). */
const INTERACTION_WINDOW_SECONDS = 3600;

/** `redis` absent: in-process counters (embedding without Redis, e.g. tests of other features). */
export function createRateLimits(settings: Settings, redis?: Redis): RateLimits {
  const limits = settings.rate_limits;
  const options: Record<LimitKind, { points: number; duration: number }> = {
    account: { points: limits.account_failures, duration: limits.account_window_seconds },
    ip: { points: limits.ip_per_minute, duration: 60 },
    interaction: { points: limits.interaction_attempts, duration: INTERACTION_WINDOW_SECONDS },
  };
  const limiters = Object.fromEntries(Object.entries(options).map(([kind, opts]) => {
    const keyPrefix = `${settings.redis.prefix}:rl:${kind}`;
    const limiter: RateLimiterAbstract = redis
      ? new RateLimiterRedis({ storeClient: redis, keyPrefix, ...opts })
      : new RateLimiterMemory({ keyPrefix, ...opts });
    return [kind, limiter];
  })) as Record<LimitKind, RateLimiterAbstract>;

  return {
    async attempt(keys) {
      let refused: LimitOutcome | undefined;
      for (const [kind, key] of keys) {
        try {
          await limiters[kind].consume(key.toLowerCase());
        } catch (error) {
          if (!(error instanceof RateLimiterRes)) throw new RateLimitUnavailable(String((error as Error)?.message ?? error));
          refused ??= { allowed: false, kind, retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
        }
      }
      return refused ?? { allowed: true };
    },
    async reset(kind, key) {
      try {
        await limiters[kind].delete(key.toLowerCase());
      } catch (error) {
        throw new RateLimitUnavailable(String((error as Error)?.message ?? error));
      }
    },
  };
}
