/**
 * The domain's RateLimits (src/domain/rate-limits.ts) on rate-limiter-flexible. Counters live in Redis so every
 * replica shares them; while Redis does not answer, each process falls back to counters of its own (the limits
 * still hold, per process) instead of refusing everyone or letting everything through. The client authentication
 * limit is checked on every token request: its blocks are announced to every replica (shared-blocks.ts), so the
 * check is answered from memory.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Settings } from '../settings/schema.js';
import type { LimitKind, LimitOutcome, RateLimits } from '../domain/rate-limits.js';
import { sharedBlocks, type BlocksInForce } from './shared-blocks.js';

/** Interaction counters outlive any sign-in (the engine's interactions last an hour). */
const INTERACTION_WINDOW_SECONDS = 3600;
const CLIENT_AUTH_FAILURES_PER_MINUTE = 20;
/** Passkey options one sign-in (or account session) may ask for: each page shows at most two ceremonies. */
const CHALLENGES_PER_SIGN_IN = 20;

/**
 * The counters under `keyPrefix` that have reached `points`, with when their window ends: what a replica that
 * has just subscribed to announced blocks must learn first. rate-limiter-flexible keeps one counter per key under
 * `{keyPrefix}:{key}`, expiring with its window. SCAN walks the keyspace in steps, never holding Redis up.
 */
export function countersAtLimit(redis: Redis, keyPrefix: string, points: number): BlocksInForce {
  const match = `${keyPrefix.replace(/[*?[\]\\]/g, '\\$&')}:*`;
  return async () => {
    const found: Array<[string, number]> = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      if (!keys.length) continue;
      const replies = (await keys.reduce((pipeline, key) => pipeline.get(key).pttl(key), redis.pipeline()).exec()) ?? [];
      const readAt = Date.now();
      keys.forEach((key, index) => {
        const [[countError, count], [ttlError, ttl]] = [replies[2 * index]!, replies[2 * index + 1]!];
        if (countError || ttlError) throw countError ?? ttlError;
        if (Number(count) >= points && Number(ttl) > 0) found.push([key.slice(keyPrefix.length + 1), readAt + Number(ttl)]);
      });
    } while (cursor !== '0');
    return found;
  };
}

/** `redis` absent: in-process counters only (embedding without Redis, e.g. tests of other features). */
export function createRateLimits(settings: Settings, redis?: Redis): RateLimits {
  const limits = settings.rate_limits;
  const options: Record<LimitKind, { points: number; duration: number }> = {
    account: { points: limits.account_failures, duration: limits.account_window_seconds },
    account_total: { points: limits.account_failures_all_addresses, duration: limits.account_window_seconds },
    ip: { points: limits.ip_per_minute, duration: 60 },
    code_mails: { points: limits.code_mails_per_hour, duration: 3600 },
    code_guesses: { points: limits.code_failures, duration: limits.code_window_seconds },
    second_factor: { points: limits.second_factor_failures, duration: limits.second_factor_window_seconds },
    interaction: { points: limits.interaction_attempts, duration: INTERACTION_WINDOW_SECONDS },
    challenges: { points: CHALLENGES_PER_SIGN_IN, duration: INTERACTION_WINDOW_SECONDS },
    challenges_ip: { points: limits.passkey_options_per_minute, duration: 60 },
    api: { points: limits.api_per_minute, duration: 60 },
    client_auth: { points: CLIENT_AUTH_FAILURES_PER_MINUTE, duration: 60 },
    account_changes: { points: settings.account.changes_per_hour, duration: 3600 },
    user_codes: { points: limits.user_code_attempts, duration: limits.user_code_window_seconds },
    // One poll per window; the second of slack absorbs network jitter between two polls sent `interval` apart.
    device_polls: { points: 1, duration: Math.max(1, settings.device_flow.poll_interval_seconds - 1) },
  };
  const limiters = Object.fromEntries(
    Object.entries(options).map(([kind, opts]) => {
      const keyPrefix = `${settings.redis.prefix}:rl:${kind}`;
      const memory = new RateLimiterMemory({ keyPrefix, ...opts });
      const limiter: RateLimiterAbstract = redis
        ? new RateLimiterRedis({ storeClient: redis, keyPrefix, ...opts, insuranceLimiter: memory, rejectIfRedisNotReady: true })
        : memory;
      return [kind, limiter];
    }),
  ) as Record<LimitKind, RateLimiterAbstract>;

  const refusal = (kind: LimitKind, res: { msBeforeNext: number }): LimitOutcome => ({
    allowed: false,
    kind,
    retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });
  // Checked on every token request, over its limit almost never: its blocks are announced instead of read.
  const announced = redis
    ? sharedBlocks(
        redis,
        `${settings.redis.prefix}:rl:blocks`,
        options.client_auth.duration * 1000,
        countersAtLimit(redis, `${settings.redis.prefix}:rl:client_auth`, options.client_auth.points),
      )
    : undefined;
  const announces = (kind: LimitKind) => announced && kind === 'client_auth';

  return {
    // Every key is counted, whatever the others say: asked together, they reach Redis in one write.
    async attempt(keys) {
      const outcomes = await Promise.all(
        keys.map(async ([kind, key]): Promise<LimitOutcome | undefined> => {
          try {
            const res = await limiters[kind].consume(key);
            if (announces(kind) && res.remainingPoints === 0) announced!.announce(key, res.msBeforeNext);
            return undefined;
          } catch (error) {
            if (!(error instanceof RateLimiterRes)) throw error;
            if (announces(kind)) announced!.announce(key, error.msBeforeNext);
            return refusal(kind, error);
          }
        }),
      );
      return outcomes.find((outcome) => outcome !== undefined) ?? { allowed: true };
    },
    async check(keys) {
      for (const [kind, key] of keys) {
        const knownMs = announces(kind) ? announced!.remainingMs(key) : undefined;
        if (knownMs !== undefined) {
          if (knownMs > 0) return refusal(kind, { msBeforeNext: knownMs });
          continue;
        }
        const res = await limiters[kind].get(key);
        if (res && res.consumedPoints >= options[kind].points) return refusal(kind, res);
      }
      return { allowed: true };
    },
    async reset(kind, key) {
      await limiters[kind].delete(key);
    },
    close() {
      announced?.close();
    },
  };
}
