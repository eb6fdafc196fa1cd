/** The `mail` queue's worker: sends each queued message (SMTP, or a file without SMTP); a failure is retried by BullMQ. */
import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Settings } from '../src/settings/schema.js';
import { type MailMessage } from '../src/domain/mail.js';
import { deliverMail } from '../src/infra/mail-transport.js';
import { MAIL_QUEUE } from '../src/queue/mail-queue.js';
import { redisConnection } from '../src/queue/queues.js';
import { workerWhenReady, type WorkerHandle } from './worker-when-ready.js';

export function startMailWorker(settings: Settings, logger: Logger): WorkerHandle {
  const connection = redisConnection(settings.redis.url, 'worker');
  connection.on('error', () => {}); // reconnects; the deliveries worker already reports outages
  return workerWhenReady(connection, () => {
    const worker = new Worker<MailMessage>(MAIL_QUEUE, async (job) => deliverMail(settings, logger, job.data), {
      connection,
      prefix: settings.redis.prefix,
      concurrency: 5,
    });
    worker.on('error', () => {});
    worker.on('failed', (job, error) => {
      const final = job && job.attemptsMade >= (job.opts.attempts ?? 1);
      logger.warn({ job: 'mail', attempt: job?.attemptsMade, final, reason: error.message }, 'mail attempt failed');
    });
    return worker;
  });
}
