/**
 * Mail through the `mail` queue as `idp worker` / embedded `idp serve` run it (startWorkers): delivered over
 * SMTP, and retried when the SMTP server is not there yet.
 */
import { freePort } from '../helpers/ports.js';
import { startWorkers } from '../../jobs/worker.js';
import { createLogger } from '../../src/observability/logger.js';
import { redisConnection } from '../../src/queue/queues.js';
import { enqueueMail, mailQueue } from '../../src/queue/mail-queue.js';
import { setupCodeMessage } from '../../src/domain/mail.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { testSettings } from '../helpers/settings.js';
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { codeIn, startSmtpCapture, type SmtpCapture } from '../helpers/smtp.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('pglite');
});
afterAll(async () => db?.close());

test('the workers send queued mail, retrying while the SMTP server is unreachable', async () => {
  const port = await freePort();
  const settings = await testSettings({
    redis: { url: REDIS_URL, prefix: uniquePrefix() },
    mail: { smtp_url: `smtp://127.0.0.1:${port}`, from: 'idp@example.com' },
  });
  const workers = startWorkers(db.store, settings, createLogger('silent'));
  const connection = redisConnection(settings.redis.url, 'producer');
  const queue = mailQueue(connection, settings.redis.prefix);
  let smtp: SmtpCapture | undefined;
  try {
    await enqueueMail(queue)(setupCodeMessage('ada@example.com', '00000000-0000-4000-8000-000000000000', 'Wiki', '042042', 10));
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the first attempt fails: nothing listens yet
    smtp = await startSmtpCapture(port);
    const mail = await smtp.waitFor('ada@example.com', 20_000);
    expect(codeIn(mail)).toBe('042042');
    expect(mail.raw).toContain('valid for 10 minutes');
    // A sent message leaves Redis: job data holds the code in clear.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await queue.getJobs(['completed'])).toEqual([]);
  } finally {
    await queue.close();
    connection.disconnect();
    await workers.close();
    await smtp?.close();
  }
});
