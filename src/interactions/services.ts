/**
 * What the credential pages need beyond the store: rate-limit counters and a way to send mail. `idp serve`
 * builds them on Redis (limits in Redis, mail through the `mail` queue); embedding without them
 * (`setupOidc` with no services) falls back to in-process counters and direct delivery.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Settings } from '../settings/schema.js';
import { createRateLimits, type RateLimits } from '../domain/rate-limits.js';
import { deliverMail, type SendMail } from '../domain/mail.js';
import { redisConnection } from '../queue/queues.js';
import { enqueueMail, mailQueue } from '../queue/mail-queue.js';

export interface SignInServices {
  limits: RateLimits;
  sendMail: SendMail;
  close(): Promise<void>;
}

export function redisSignInServices(settings: Settings): SignInServices {
  const connection = redisConnection(settings.redis.url, 'producer'); // fails fast while Redis is down
  // Counters wait out a reconnect (and the first connect at start) for up to 2 s, then the page fails closed.
  const counters = new Redis(settings.redis.url, {
    maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 2000, commandTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  for (const client of [connection, counters]) client.on('error', () => {});
  const queue = mailQueue(connection, settings.redis.prefix);
  queue.on('error', () => {});
  return {
    limits: createRateLimits(settings, counters),
    sendMail: enqueueMail(queue),
    async close() {
      await queue.close();
      connection.disconnect();
      counters.disconnect();
    },
  };
}

export function inProcessSignInServices(settings: Settings, logger: Logger): SignInServices {
  return {
    limits: createRateLimits(settings),
    sendMail: (message) => deliverMail(settings, logger, message),
    close: async () => {},
  };
}
