/**
 * One outbound SCIM delivery: the user (and membership) an outbox event names, pushed as it is now to the
 * application's SCIM server (src/domain/provisioning.ts) — with the webhooks' guarantees, since it is one more
 * kind of delivery: created with the event, retried with backoff (5xx, 429, no answer), logged per attempt in the
 * delivery log and counted in the metrics. One attempt may make several requests; the first that fails is the one
 * the log shows.
 */
import type { Job } from 'bullmq';
import type { Settings } from '../src/settings/schema.js';
import type { Store } from '../src/store/contract.js';
import type { DeliveryJob } from '../src/queue/queues.js';
import { pushEvent, RemoteFailure, scimConfigOf } from '../src/domain/provisioning.js';
import { scimClient } from '../src/infra/scim-client.js';
import { abandonDelivery, positionOf, settleAttempt } from './settle-attempt.js';

export function scimPushProcessor(store: Store, settings: Settings) {
  const apps = new Map(settings.applications.map((app) => [app.slug, app]));

  return async function pushScim(job: Job<DeliveryJob>): Promise<void> {
    const found = (await store.events.findDeliveriesWithEvents([job.data.deliveryId])).get(job.data.deliveryId);
    if (!found || found.delivery.status === 'delivered') return;
    const { delivery, event } = found;
    const app = apps.get(delivery.app);
    const config = app && scimConfigOf(app);
    const position = positionOf(delivery.attempts, job);
    const token = config && process.env[config.token_env];
    if (!event || !app || !config || !token)
      return abandonDelivery(store, delivery.id, position.attempt, 'the application has no SCIM provisioning configured any more');

    const remote = scimClient({
      url: config.url,
      token,
      timeoutMs: settings.webhooks.timeout_seconds * 1000,
      allowInsecureLoopback: settings.webhooks.allow_insecure_loopback,
    });
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      await pushEvent(store, app, remote, event);
      await settleAttempt(store, delivery, position, { status: 200, error: null, durationMs: took() });
    } catch (error) {
      if (!(error instanceof RemoteFailure)) throw error;
      const result = { status: error.status, error: error.message, durationMs: took() };
      await settleAttempt(store, delivery, position, result);
    }
  };
}
