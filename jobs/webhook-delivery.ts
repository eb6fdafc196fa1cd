/**
 * Delivers one webhook (spec §6.1): POST the stored body with the event id that stays the same on every
 * attempt, signed afresh per attempt (jobs/sign-webhook.ts: X-Service-Signature and Standard Webhooks).
 * 2xx = delivered; 5xx, 429, timeouts and connection errors are retried by BullMQ (the receiver's
 * Retry-After, or the backoff from config); any other status fails at once. A 410 Gone also disables the
 * receiver until an operator enables it again (`idp webhooks enable`). Every attempt is logged.
 */
import type { Job } from 'bullmq';
import type { Settings } from '../src/settings/schema.js';
import type { Store } from '../src/store/contract.js';
import type { AttemptOutcome } from '../src/store/contract.js';
import type { DeliveryJob } from '../src/queue/queues.js';
import { postWithTimeout } from './http-attempt.js';
import { abandonDelivery, positionOf, settleAttempt } from './settle-attempt.js';
import { activeSecrets, webhookHeaders } from './sign-webhook.js';
import { batchCalls } from '../src/batch-calls.js';

export const GONE_REASON = 'the receiver answered 410 Gone';

/** A read kept for `ms` (a failed read is not kept): for state that changes rarely and is read on a hot path. */
function keptFor<T>(ms: number, read: () => Promise<T>): { get(): Promise<T>; forget(): void } {
  let kept: { at: number; value: Promise<T> } | undefined;
  return {
    get() {
      if (!kept || Date.now() - kept.at > ms) {
        const value = read();
        kept = { at: Date.now(), value };
        value.catch(() => {
          if (kept?.value === value) kept = undefined;
        });
      }
      return kept.value;
    },
    forget() {
      kept = undefined;
    },
  };
}

/** The store with the reads and attempt logs of deliveries running at the same moment made together. */
export function batchedDeliveries(store: Store): Store {
  const findOne = batchCalls(async (ids: string[]) => {
    const found = await store.events.findDeliveriesWithEvents(ids);
    return ids.map((id) => found.get(id));
  });
  const recordOne = batchCalls(async (attempts: Array<{ deliveryId: string; outcome: AttemptOutcome }>) => {
    await store.events.recordAttempts(attempts);
    return attempts.map(() => undefined);
  });
  return {
    ...store,
    events: {
      ...store.events,
      findDeliveriesWithEvents: async (ids) => {
        const rows = await Promise.all(ids.map(findOne));
        return new Map(rows.flatMap((row) => (row ? [[row.delivery.id, row] as const] : [])));
      },
      recordAttempt: (deliveryId, outcome) => recordOne({ deliveryId, outcome }),
    },
  };
}

export function webhookProcessor(unbatched: Store, settings: Settings) {
  const store = batchedDeliveries(unbatched);
  const apps = new Map(settings.applications.map((app) => [app.slug, app]));
  // Receivers are disabled by a 410 and enabled by an operator, rarely: one read a second per process, not one per attempt.
  const disabledReceivers = keptFor(1000, () => store.events.disabledEndpoints());

  return async function deliverWebhook(job: Job<DeliveryJob>): Promise<void> {
    const found = (await store.events.findDeliveriesWithEvents([job.data.deliveryId])).get(job.data.deliveryId);
    if (!found || found.delivery.status === 'delivered') return;
    const { delivery, event } = found;
    const webhook = apps.get(delivery.app)?.webhook;
    const position = positionOf(delivery.attempts, job);
    if (!event || !webhook?.secret)
      return abandonDelivery(store, delivery.id, position.attempt, 'the application has no webhook configured any more');
    const disabled = (await disabledReceivers.get()).find((row) => row.app === delivery.app);
    if (disabled?.url === delivery.target) {
      return abandonDelivery(
        store,
        delivery.id,
        position.attempt,
        `the receiver is disabled (${disabled.reason}); enable it with idp webhooks enable ${delivery.app}`,
      );
    }

    const result = await postWithTimeout(delivery.target, {
      body: event.body,
      headers: webhookHeaders(activeSecrets(webhook), event),
      timeoutMs: settings.webhooks.timeout_seconds * 1000,
      allowInsecureLoopback: settings.webhooks.allow_insecure_loopback,
      retryAfterMaxSeconds: settings.webhooks.retry_after_max_seconds,
    });
    if (result.status === 410) {
      await store.events.disableEndpoint(delivery.app, delivery.target, GONE_REASON);
      disabledReceivers.forget();
    }
    await settleAttempt(store, delivery, position, result);
  };
}
