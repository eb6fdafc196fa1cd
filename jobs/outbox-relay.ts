/**
 * Moves committed outbox events into BullMQ: one delivery row and one job per recipient (job id = delivery
 * id, so a repeated relay enqueues nothing twice), then marks the events dispatched; a batch at a time. While Redis is down the
 * enqueue fails, the event stays undispatched, and the next round tries again: nothing is lost.
 */
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Settings } from '../src/settings/schema.js';
import type { Store } from '../src/store/contract.js';
import type { DeliveryRow, NewDelivery } from '../src/store/contract.js';
import { backchannelRecipients, webhookRecipients } from '../src/domain/recipients.js';
import { provisioningRecipients } from '../src/domain/provisioning.js';
import { deliveryJobOptions, type DeliveryJob } from '../src/queue/queues.js';

const BATCH = 500;
const LEASE_MS = 30_000;

export function outboxRelay(store: Store, queue: Queue<DeliveryJob>, settings: Settings, logger: Logger) {
  /** One job per delivery that has not been tried yet, added in one round trip (job id = delivery id). */
  async function enqueue(deliveries: DeliveryRow[]) {
    const fresh = deliveries.filter((delivery) => delivery.status === 'pending' && delivery.attempts === 0);
    if (fresh.length)
      await queue.addBulk(
        fresh.map((delivery) => ({
          name: delivery.kind,
          data: { deliveryId: delivery.id },
          opts: deliveryJobOptions(settings, delivery.id),
        })),
      );
  }

  /** A batch at a time: one claim, one insert of its deliveries, one bulk enqueue, one update marking it dispatched. */
  async function relayOnce(): Promise<number> {
    const events = await store.events.claimPending(BATCH, new Date(), LEASE_MS);
    if (!events.length) return 0;
    const ids = events.map((event) => event.id);
    try {
      const wanted: NewDelivery[] = events.flatMap((event) => [
        ...webhookRecipients(settings.applications, event).map((app) => ({
          event_id: event.id,
          app: app.slug,
          kind: 'webhook' as const,
          target: app.webhook!.url,
        })),
        ...backchannelRecipients(settings.applications, event).map((app) => ({
          event_id: event.id,
          app: app.slug,
          kind: 'backchannel' as const,
          target: app.backchannel_logout_uri!,
        })),
        ...provisioningRecipients(settings.applications, event).map((app) => ({
          event_id: event.id,
          app: app.slug,
          kind: 'scim' as const,
          target: app.provisioning!.scim!.url,
        })),
      ]);
      await enqueue(await store.events.ensureDeliveries(wanted));
    } catch (error) {
      await store.events.releaseClaims(ids); // the next round takes them again at once
      throw error;
    }
    await store.events.markDispatched(ids, new Date());
    return events.length;
  }

  /** Deliveries whose job vanished (Redis lost its data) go back on the queue; an existing job id makes this a no-op. */
  async function requeueStale(): Promise<number> {
    const before = new Date(Date.now() - settings.worker.requeue_after_seconds * 1000);
    const stale = await store.events.claimStalePending(before, BATCH);
    if (stale.length)
      await queue.addBulk(
        stale.map((delivery) => ({
          name: delivery.kind,
          data: { deliveryId: delivery.id },
          opts: deliveryJobOptions(settings, delivery.id),
        })),
      );
    return stale.length;
  }

  let timer: NodeJS.Timeout | undefined;
  let lastRequeue = 0;
  let running = false;
  let failing = false;
  let stopping = false;

  async function tick() {
    if (running || stopping) return;
    running = true;
    try {
      // A backlog is relayed batch by batch; a stop ends it between batches (the rest stays in the outbox).
      while (!stopping && (await relayOnce()) === BATCH);
      if (Date.now() - lastRequeue > Math.min(settings.worker.requeue_after_seconds * 500, 10_000)) {
        lastRequeue = Date.now();
        await requeueStale();
      }
      if (failing) logger.info('outbox relay recovered');
      failing = false;
    } catch (error) {
      if (!failing) logger.warn({ err: (error as Error).message }, 'outbox relay cannot enqueue; events wait in the outbox');
      failing = true;
    } finally {
      running = false;
    }
  }

  return {
    relayOnce,
    requeueStale,
    start() {
      timer = setInterval(() => void tick(), settings.worker.relay_interval_ms);
      void tick();
    },
    async stop() {
      stopping = true;
      clearInterval(timer);
      while (running) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}
