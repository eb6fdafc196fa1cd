/**
 * Queue names and connections shared by producers (src/) and workers (jobs/). Producers fail fast while Redis
 * is down (no offline queue), so the outbox relay keeps events in PostgreSQL until Redis is back.
 */
import { Queue, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { Settings } from '../settings/schema.js';

export const QUEUES = { deliveries: 'deliveries' } as const;

export interface DeliveryJob {
  deliveryId: string;
}

export function redisConnection(url: string, role: 'producer' | 'worker'): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    connectTimeout: 2000,
    // A producer command caught by a dropped connection must fail, not hang the relay (workers block on purpose).
    ...(role === 'producer' ? { commandTimeout: 5000 } : {}),
    lazyConnect: false,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
}

/** A failed attempt whose receiver said when to come back (Retry-After): the next attempt waits `delayMs`. */
export class RetryLater extends Error {
  override name = 'RetryLater';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/** The backoff type of delivery jobs, computed by `deliveryBackoff` (workers pass it as `settings.backoffStrategy`). */
export const DELIVERY_BACKOFF = 'retry-after-or-exponential';

/** BullMQ's exponential delay, backoff·2^(n-1), unless the attempt failed with RetryLater. */
export const deliveryBackoff = (attemptsMade: number, _type?: string, error?: Error, job?: { opts: JobsOptions }): number => {
  if (error instanceof RetryLater) return error.delayMs;
  const backoff = job?.opts.backoff;
  const delay = typeof backoff === 'object' ? (backoff.delay ?? 0) : (backoff ?? 0);
  return Math.round(2 ** (attemptsMade - 1) * delay);
};

/** Attempts and backoff (config `webhooks`): 1 + retries attempts, delays backoff·2^(n-1) or the receiver's Retry-After. */
export function deliveryJobOptions(settings: Settings, jobId: string): JobsOptions {
  return {
    jobId,
    attempts: settings.webhooks.retries + 1,
    backoff: { type: DELIVERY_BACKOFF, delay: Math.round(settings.webhooks.backoff_seconds * 1000) },
    removeOnComplete: { count: 1000 },
    removeOnFail: { count: 5000 },
  };
}

export function deliveriesQueue(connection: Redis, prefix: string): Queue<DeliveryJob> {
  return new Queue<DeliveryJob>(QUEUES.deliveries, { connection, prefix });
}

/**
 * Redelivery from the API: a new job (new id) for the same delivery row, with a full set of attempts. Once it is
 * queued, the delivery's earlier jobs that gave up leave the failed set (their attempts stay in the delivery log):
 * idp_queue_jobs{state="failed"} then counts deliveries given up, not ones sent again.
 */
export const enqueueAgain = (queue: Queue<DeliveryJob>, settings: Settings) => async (delivery: { id: string; kind: string }) => {
  await queue.add(delivery.kind, { deliveryId: delivery.id }, deliveryJobOptions(settings, `${delivery.id}-${Date.now()}`));
  // The relay's job id is the delivery's id; a redelivery's is the id and a time.
  const earlier = (await queue.getRanges(['failed'], 0, -1)).filter((id) => id === delivery.id || id.startsWith(`${delivery.id}-`));
  await Promise.all(earlier.map((id) => queue.remove(id)));
};
