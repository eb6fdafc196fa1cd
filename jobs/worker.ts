/** Runs the background work: the outbox relay and the delivery workers. Used by `idp worker` and embedded `idp serve`. */
import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Settings } from '../src/settings/schema.js';
import type { Store } from '../src/store/contract.js';
import { QUEUES, deliveriesQueue, deliveryBackoff, enqueueAgain, redisConnection, type DeliveryJob } from '../src/queue/queues.js';
import { outboxRelay } from './outbox-relay.js';
import { webhookProcessor } from './webhook-delivery.js';
import { startMailWorker } from './mail-delivery.js';
import { workerWhenReady } from './worker-when-ready.js';
import { backchannelProcessor } from './backchannel-delivery.js';
import { scimPushProcessor } from './scim-push.js';
import type { SignLogoutToken } from '../src/domain/logout.js';

export type Processor = (job: Job<DeliveryJob>) => Promise<void>;

export interface Workers {
  relay: ReturnType<typeof outboxRelay>;
  /** Redelivery for the API (createApp's `enqueue`). */
  enqueue: (delivery: { id: string; kind: string }) => Promise<void>;
  /** Readiness: resolves while Redis answers. */
  ping(): Promise<void>;
  /** Jobs in the delivery queue by state (metrics). */
  jobCounts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/**
 * `signLogoutToken` (from src/oidc: the web layer owns the engine and its keys) enables backchannel logout jobs.
 * `logger` is the process's: each part names itself as its `component` (a child of a child would repeat the key).
 */
export function startWorkers(store: Store, settings: Settings, logger: Logger, signLogoutToken?: SignLogoutToken): Workers {
  const processors: Record<string, Processor> = {
    webhook: webhookProcessor(store, settings),
    scim: scimPushProcessor(store, settings),
    ...(signLogoutToken ? { backchannel: backchannelProcessor(store, settings, signLogoutToken) } : {}),
  };
  const producer = redisConnection(settings.redis.url, 'producer');
  const consumer = redisConnection(settings.redis.url, 'worker');
  for (const connection of [producer, consumer]) connection.on('error', () => {}); // reconnects; the relay logs the outage once
  const queue = deliveriesQueue(producer, settings.redis.prefix);
  queue.on('error', () => {});

  const worker = workerWhenReady(
    consumer,
    () => {
      const deliveries = new Worker<DeliveryJob>(
        QUEUES.deliveries,
        async (job) => {
          const process = processors[job.name];
          if (!process) throw new Error(`no processor for job ${job.name}`);
          await process(job);
        },
        {
          connection: consumer,
          prefix: settings.redis.prefix,
          concurrency: settings.worker.concurrency,
          stalledInterval: settings.worker.stalled_interval_ms,
          lockDuration: settings.worker.stalled_interval_ms,
          maxStalledCount: 3,
          settings: { backoffStrategy: deliveryBackoff },
        },
      );
      deliveries.on('error', () => {});
      deliveries.on('failed', (job, error) => {
        const final = job && job.attemptsMade >= (job.opts.attempts ?? 1);
        logger.warn(
          {
            component: 'worker',
            job: job?.name,
            deliveryId: job?.data.deliveryId,
            attempt: job?.attemptsMade,
            final,
            reason: error.message,
          },
          'delivery attempt failed',
        );
      });
      return deliveries;
    },
    (settings.webhooks.timeout_seconds + 5) * 1000,
  ); // in-flight attempts end within their HTTP timeout

  const mail = startMailWorker(settings, logger.child({ component: 'mail' }));
  const relay = outboxRelay(store, queue, settings, logger.child({ component: 'outbox-relay' }));
  relay.start();

  return {
    relay,
    enqueue: enqueueAgain(queue, settings),
    ping: async () => {
      await producer.ping();
    },
    jobCounts: () => queue.getJobCounts('waiting', 'active', 'delayed', 'failed'),
    async close() {
      await relay.stop();
      await worker.close();
      await mail.close();
      await queue.close();
      producer.disconnect();
    },
  };
}
