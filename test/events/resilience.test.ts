/**
 * Nothing is lost: events written while Redis is down are delivered once it is back; a delivery whose job
 * vanished with Redis's data is queued again; a worker killed mid-delivery leaves a job another worker retries.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { startReceiver } from '../helpers/receiver.js';
import { privateRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { startTestServer } from '../helpers/server.js';
import { startIdp } from '../helpers/cli.js';
import { webhookSettings } from '../helpers/webhooks.js';

const app = (url: string) => ({
  slug: 'listener',
  name: 'Listener',
  client_id: 'client-listener',
  client_secret: 'secret-secret-secret',
  redirect_uris: ['http://127.0.0.1/cb'],
  webhook: { url, secret: 'whsec-test-0123456789abcdef' },
});

const eventIds = (received: Array<{ headers: Record<string, unknown> }>) => new Set(received.map((r) => r.headers['x-service-event-id']));

test('Redis down while users change: events wait in the outbox and are all delivered when it is back', async () => {
  const redis = await privateRedis();
  const receiver = await startReceiver();
  const s = await startTestServer(
    'pglite',
    { ...webhookSettings([app(receiver.url)]), redis: { url: redis.url, prefix: uniquePrefix() } },
    { workers: true },
  );
  try {
    const first = await s.api('/api/v3/core/users/', {
      json: { username: 'before@example.com', email: 'before@example.com', name: 'Before' },
    });
    await s.api(`/api/v3/core/users/${first.body.pk}/`, { method: 'PATCH', json: { name: 'Before Renamed' } });
    await receiver.waitFor(1);

    await redis.stop();
    for (let i = 0; i < 5; i++) {
      const res = await s.api(`/api/v3/core/users/${first.body.pk}/`, { method: 'PATCH', json: { name: `During outage ${i}` } });
      expect(res.status).toBe(200); // the API does not need Redis
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(1);
    const waiting = await sql<{ n: number }>`select count(*)::int as n from outbox where dispatched_at is null`.execute(s.db.database.db);
    expect(waiting.rows[0]!.n).toBe(5);

    await redis.start();
    await receiver.waitFor(6, 30_000);
    const names = receiver.received.slice(1).map((r) => JSON.parse(r.raw.toString()).data.changed);
    expect(names).toEqual(Array(5).fill(['name']));
    expect(eventIds(receiver.received).size).toBe(6);
  } finally {
    await s.close();
    await receiver.close();
    await redis.stop();
  }
}, 60_000);

test('a delivery whose job was lost with Redis data is queued again', async () => {
  const redis = await privateRedis();
  const receiver = await startReceiver(() => 'hang'); // the first attempt runs into its timeout
  const s = await startTestServer(
    'pglite',
    {
      ...webhookSettings([app(receiver.url)]),
      webhooks: { timeout_seconds: 2, retries: 3, backoff_seconds: 0.05, allow_insecure_loopback: true },
      worker: { embedded: true, relay_interval_ms: 50, concurrency: 5, stalled_interval_ms: 1000, requeue_after_seconds: 1 },
      redis: { url: redis.url, prefix: uniquePrefix() },
    },
    { workers: true },
  );
  try {
    const user = await s.api('/api/v3/core/users/', { json: { username: 'lost@example.com', email: 'lost@example.com', name: 'Lost' } });
    await s.api(`/api/v3/core/users/${user.body.pk}/`, { method: 'PATCH', json: { name: 'Lost Renamed' } });
    await receiver.waitFor(1);
    // Redis dies with the job in it (no persistence): when the attempt times out there is no job left to
    // retry, and only the requeue of stale pending deliveries can finish the delivery.
    await redis.stop();
    await redis.start();
    receiver.respond = () => 200;
    const hits = await receiver.waitFor(2, 30_000);
    expect(hits[1]!.headers['x-service-event-id']).toBe(hits[0]!.headers['x-service-event-id']);
    for (let i = 0; i < 100; i++) {
      const log = await s.api('/api/v3/events/deliveries/?status=delivered');
      if (log.body.pagination.count === 1) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the requeued delivery was never recorded as delivered');
  } finally {
    await s.close();
    await receiver.close();
    await redis.stop();
  }
}, 60_000);

// A worker is a separate process sharing the database: that needs PostgreSQL (PGlite is single-process).
const withPostgres = process.env.TEST_DATABASE_URL ? test : test.skip;
withPostgres(
  'a worker killed mid-delivery: another worker retries the job',
  async () => {
    const receiver = await startReceiver((_, i) => (i === 0 ? 'hang' : 200));
    const prefix = uniquePrefix();
    const s = await startTestServer('postgres', {
      ...webhookSettings([app(receiver.url)]),
      redis: { url: REDIS_URL, prefix },
      webhooks: { timeout_seconds: 30, retries: 3, backoff_seconds: 0.05, allow_insecure_loopback: true },
    });
    const env = {
      DATABASE_URL: s.db.url!,
      IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-worker-')),
      NODE_CONFIG: JSON.stringify({
        redis: { url: REDIS_URL, prefix },
        secrets: { key: 'k'.repeat(64) },
        webhooks: { timeout_seconds: 30, retries: 3, backoff_seconds: 0.05, allow_insecure_loopback: true },
        worker: { embedded: false, relay_interval_ms: 50, concurrency: 5, stalled_interval_ms: 1000, requeue_after_seconds: 300 },
        applications: [app(receiver.url)],
      }),
    };
    const first = startIdp(['worker'], env);
    let second: ReturnType<typeof startIdp> | undefined;
    try {
      const user = await s.api('/api/v3/core/users/', {
        json: { username: 'crash@example.com', email: 'crash@example.com', name: 'Crash' },
      });
      await s.api(`/api/v3/core/users/${user.body.pk}/`, { method: 'PATCH', json: { name: 'Crash Renamed' } });
      await receiver.waitFor(1, 30_000); // the first worker is now inside the delivery
      first.kill('SIGKILL');
      second = startIdp(['worker'], env);
      const hits = await receiver.waitFor(2, 30_000);
      expect(hits[1]!.headers['x-service-event-id']).toBe(hits[0]!.headers['x-service-event-id']);
      expect(hits[1]!.raw.equals(hits[0]!.raw)).toBe(true);
    } finally {
      first.kill('SIGKILL');
      second?.kill('SIGTERM');
      await s.close();
      await receiver.close();
    }
  },
  90_000,
);
