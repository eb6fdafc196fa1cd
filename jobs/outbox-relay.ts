/**
 * Moves committed outbox events into BullMQ: one delivery row and one job per recipient (job id = delivery
 * id, so a repeated relay enqueues nothing twice), then marks the event dispatched. While Redis is down the
 * enqueue fails, the event stays undispatched, and the next round tries again: nothing is lost.
 */
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Settings } from '../src/settings/schema.js';
import type { Store } from '../src/store/contract.js';
import type { DeliveryKind } from '../src/store/events-contract.js';
import { backchannelRecipients, webhookRecipients } from '../src/domain/recipients.js';
import { deliveryJobOptions, type DeliveryJob } from '../src/queue/queues.js';

const BATCH = 100;
const LEASE_MS = 30_000;

export function outboxRelay(store: Store, queue: Queue<DeliveryJob>, settings: Settings, logger: Logger) {
  async function deliver(eventId: string, app: string, kind: DeliveryKind, target: string) {
    const delivery = await store.events.ensureDelivery({ event_id: eventId, app, kind, target });
    if (delivery.status === 'pending' && delivery.attempts === 0) {
      await queue.add(delivery.kind, { deliveryId: delivery.id }, deliveryJobOptions(settings, delivery.id));
    }
  }

  async function relayOnce(): Promise<number> {
    const events = await store.events.claimPending(BATCH, new Date(), LEASE_MS);
    const done: string[] = [];
    try {
      for (const event of events) {
        for (const app of webhookRecipients(settings.applications, event)) await deliver(event.id, app.slug, 'webhook', app.webhook!.url);
        for (const app of backchannelRecipients(settings.applications, event)) await deliver(event.id, app.slug, 'backchannel', app.backchannel_logout_uri!);
        done.push(event.id);
      }
    } finally {
      await store.events.markDispatched(done, new Date());
      await store.events.releaseClaims(events.filter((event) => !done.includes(event.id)).map((event) => event.id));
    }
    return done.length;
  }

  /** Deliveries whose job vanished (Redis lost its data) go back on the queue; an existing job id makes this a no-op. */
  async function requeueStale(): Promise<number> {
    const before = new Date(Date.now() - settings.worker.requeue_after_seconds * 1000);
    const stale = await store.events.claimStalePending(before, BATCH);
    for (const delivery of stale) await queue.add(delivery.kind, { deliveryId: delivery.id }, deliveryJobOptions(settings, delivery.id));
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
