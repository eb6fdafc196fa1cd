/**
 * The end of one delivery attempt, shared by webhooks and backchannel logout: log it, move the delivery to
 * its next state, and tell BullMQ what follows — return = delivered, Error = retry with backoff (a
 * RetryLater carrying the receiver's Retry-After sets that delay instead), UnrecoverableError = stop now.
 */
import { UnrecoverableError } from 'bullmq';
import type { Store } from '../src/store/contract.js';
import { RetryLater } from '../src/queue/queues.js';
import { deliveries } from '../src/observability/metrics.js';
import { describeOutcome, isRetryable, type AttemptResult } from './http-attempt.js';

export interface AttemptPosition {
  /** Numbered across redeliveries. */
  attempt: number;
  /** This job has no attempt left. */
  last: boolean;
}

export async function settleAttempt(
  store: Store,
  delivery: { id: string; kind: string },
  { attempt, last }: AttemptPosition,
  result: AttemptResult,
): Promise<void> {
  const delivered = result.status !== null && result.status >= 200 && result.status < 300;
  const retryable = !delivered && isRetryable(result);
  const status = delivered ? 'delivered' : retryable && !last ? 'pending' : 'failed';
  await store.events.recordAttempt(delivery.id, {
    attempt,
    status_code: result.status,
    error: result.error,
    duration_ms: result.durationMs,
    status,
  });
  deliveries.inc({ kind: delivery.kind, outcome: status === 'pending' ? 'retry' : status });
  if (delivered) return;
  if (!retryable) throw new UnrecoverableError(describeOutcome(result));
  if (result.retryAfterMs !== undefined)
    throw new RetryLater(`${describeOutcome(result)}, Retry-After ${result.retryAfterMs} ms`, result.retryAfterMs);
  throw new Error(describeOutcome(result));
}

/** A delivery that can never succeed (its application lost the receiver): logged as failed, no retry. */
export async function abandonDelivery(store: Store, deliveryId: string, attempt: number, reason: string): Promise<never> {
  await store.events.recordAttempt(deliveryId, { attempt, status_code: null, error: reason, duration_ms: 0, status: 'failed' });
  throw new UnrecoverableError(reason);
}

export const positionOf = (deliveryAttempts: number, job: { attemptsMade: number; opts: { attempts?: number } }): AttemptPosition => ({
  attempt: deliveryAttempts + 1,
  last: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
});
