/** The web process's side of the queue when workers run elsewhere: redelivery and a readiness ping. */
import type { Settings } from '../settings/schema.js';
import { deliveriesQueue, enqueueAgain, redisConnection } from './queues.js';

export interface Producer {
  enqueue: (delivery: { id: string; kind: string }) => Promise<void>;
  ping(): Promise<void>;
  /** Jobs in the delivery queue by state (metrics). */
  jobCounts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export function startProducer(settings: Settings): Producer {
  const connection = redisConnection(settings.redis.url, 'producer');
  connection.on('error', () => {}); // reconnects by itself; readiness reports the outage
  const queue = deliveriesQueue(connection, settings.redis.prefix);
  queue.on('error', () => {});
  return {
    enqueue: enqueueAgain(queue, settings),
    ping: async () => {
      await connection.ping();
    },
    jobCounts: () => queue.getJobCounts('waiting', 'active', 'delayed', 'failed'),
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}
