/** `idp deliveries list|redeliver` as a real process on a shared PostgreSQL database and the test Redis. */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { lastLine, runIdp } from '../helpers/cli.js';
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js';

const withPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

withPostgres('idp deliveries (PostgreSQL: the CLI and the test share the database)', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  const prefix = uniquePrefix();
  beforeAll(async () => {
    db = await openTestDatabase('postgres');
    env = {
      DATABASE_URL: db.url!,
      IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-deliveries-')),
      NODE_CONFIG: JSON.stringify({ redis: { url: REDIS_URL, prefix }, secrets: { key: 'k'.repeat(64) } }),
    };
  });
  afterAll(() => db.close());

  test('list shows a failed delivery; redeliver queues it again; unknown ids fail with one line', async () => {
    const eventId = randomUUID();
    await db.store.events.append({ id: eventId, type: 'user_updated', body: '{}' });
    const delivery = await db.store.events.ensureDelivery({
      event_id: eventId,
      app: 'wiki',
      kind: 'webhook',
      target: 'https://wiki.example/hook',
    });
    await db.store.events.recordAttempt(delivery.id, { attempt: 1, status_code: 503, error: null, duration_ms: 5, status: 'failed' });

    const listed = await runIdp(['deliveries', 'list', '--status', 'failed', '--json'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: delivery.id, status: 'failed', app: 'wiki', event_type: 'user_updated', last_status_code: 503 }),
    ]);
    const text = await runIdp(['deliveries', 'list'], env);
    const rows = text.stdout
      .trim()
      .split('\n')
      .map((row) => row.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['ID', 'STATUS', 'KIND', 'APP', 'EVENT', 'ATTEMPTS', 'LAST OUTCOME']);
    expect(rows).toContainEqual([delivery.id, 'failed', 'webhook', 'wiki', 'user_updated', '1', '503']);

    const again = await runIdp(['deliveries', 'redeliver', delivery.id], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`queued ${delivery.id}`);
    expect((await db.store.events.findDelivery(delivery.id))!.status).toBe('pending');
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('deliveries', { connection, prefix });
    try {
      const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized']);
      expect(jobs.map((job) => [job.name, job.data.deliveryId])).toEqual([['webhook', delivery.id]]);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }

    for (const id of [randomUUID(), 'not-an-id']) {
      const missing = await runIdp(['deliveries', 'redeliver', id], env);
      expect(missing.code).toBe(1);
      expect(lastLine(missing.stderr)).toMatch(/delivery not found/);
    }
  }, 90_000);
});
