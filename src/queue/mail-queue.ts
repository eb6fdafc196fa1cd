/** The `mail` queue: the web process queues messages; the workers (jobs/mail-delivery.ts) send them with retries. */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { MailMessage, SendMail } from '../domain/mail.js';

export const MAIL_QUEUE = 'mail';

export function mailQueue(connection: Redis, prefix: string): Queue<MailMessage> {
  return new Queue<MailMessage>(MAIL_QUEUE, { connection, prefix });
}

/**
 * Five attempts, 2 s doubling: an SMTP hiccup of about a minute is absorbed; the code stays valid 10 minutes.
 * A sent message leaves Redis at once and a failed one after an hour: job data holds codes in clear.
 */
export const enqueueMail =
  (queue: Queue<MailMessage>): SendMail =>
  async (message) => {
    await queue.add('mail', message, {
      attempts: 5,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: true,
      removeOnFail: { age: 3600 },
    });
  };
