/** Settings for tests that deliver: fast retries, loopback receivers, a private queue prefix on the test Redis. */
import { REDIS_URL, uniquePrefix } from './redis.js';

export const webhookSettings = (applications: unknown[], extra: Record<string, unknown> = {}) => ({
  redis: { url: REDIS_URL, prefix: uniquePrefix() },
  webhooks: { timeout_seconds: 1, retries: 3, backoff_seconds: 0.05, allow_insecure_loopback: true },
  worker: { embedded: true, relay_interval_ms: 50, concurrency: 5, stalled_interval_ms: 1000, requeue_after_seconds: 300 },
  applications,
  ...extra,
});
