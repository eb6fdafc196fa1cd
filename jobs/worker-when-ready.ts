/**
 * A BullMQ worker made once its Redis connection is first ready. BullMQ's close waits for Redis to answer, so a
 * worker made while Redis is away (down at start) would hold up every shutdown; one that never reached Redis
 * has nothing in flight to wait for. Closing waits for the worker's jobs at most `graceMs`, then lets go.
 */
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';

export interface WorkerHandle {
  close(): Promise<void>;
}

export function workerWhenReady(connection: Redis, create: () => Worker, graceMs = 5000): WorkerHandle {
  let worker: Worker | undefined;
  const start = () => {
    worker = create();
  };
  if (connection.status === 'ready') start();
  else connection.once('ready', start);
  return {
    async close() {
      connection.off('ready', start);
      let timer: NodeJS.Timeout | undefined;
      if (worker)
        await Promise.race([
          worker.close(),
          new Promise((resolve) => {
            timer = setTimeout(resolve, graceMs);
          }),
        ]);
      clearTimeout(timer);
      connection.disconnect();
    },
  };
}
