/**
 * Webhooks end to end with real parts: API change → outbox (same transaction) → relay → BullMQ on real Redis
 * → HTTP POST to a real receiver. Signatures are checked independently of the service's own code.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { engines } from '../helpers/database.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { webhookSettings } from '../helpers/webhooks.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SECRET = 'whsec-test-0123456789abcdef';

/** What a receiver does (docs/integrating.md): HMAC the raw bytes, compare in constant time. */
function verify(raw: Buffer, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`);
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const app = (slug: string, url: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: slug,
  client_id: `client-${slug}`,
  client_secret: 'secret-secret-secret',
  redirect_uris: ['http://127.0.0.1/cb'],
  webhook: { url, secret: SECRET },
  ...extra,
});

describe.each(engines)('webhooks on %s', (engine) => {
  let all: Receiver;
  let staffOnly: Receiver;
  let s: TestServer;
  let staff: string;

  beforeAll(async () => {
    all = await startReceiver();
    staffOnly = await startReceiver();
    s = await startTestServer(
      engine,
      webhookSettings([app('everyone', all.url), app('staff-app', staffOnly.url, { access_group: 'staff' })]),
      { workers: true },
    );
    // The access group exists from the start, as with `idp serve`.
    staff = (await s.api('/api/v3/core/groups/?search=staff')).body.results.find((g: { name: string }) => g.name === 'staff').pk;
  });
  afterAll(async () => {
    await s.close();
    await all.close();
    await staffOnly.close();
  });
  beforeEach(() => {
    all.received.length = 0;
    staffOnly.received.length = 0;
    all.respond = () => 200;
  });

  const createUser = async (n: string, groups: string[] = []) =>
    (await s.api('/api/v3/core/users/', { json: { username: `${n}@example.com`, email: `${n}@example.com`, name: n, groups } })).body;

  test('group_membership_change: exact body, signature over the raw bytes, event id header', async () => {
    const user = await createUser('member');
    expect((await s.api(`/api/v3/core/groups/${staff}/add_user/`, { json: { pk: user.pk } })).status).toBe(204);
    const [hit] = await all.waitFor(1);
    const body = JSON.parse(hit!.raw.toString('utf8'));
    expect(body).toEqual({
      event_type: 'group_membership_change',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { user_id: user.uuid, user_email: 'member@example.com', group_name: 'staff', group_id: staff, action: 'added' },
    });
    expect(Object.keys(body)).toEqual(['event_type', 'timestamp', 'data']);
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify(hit!.raw, hit!.headers['x-service-signature'])).toBe(true);
    expect(verify(Buffer.from(hit!.raw.toString() + ' '), hit!.headers['x-service-signature'])).toBe(false);
    expect(hit!.headers['x-service-event-id']).toMatch(/^[0-9a-f-]{36}$/);

    // The access-group app hears the addition to its group.
    const [staffHit] = await staffOnly.waitFor(1);
    expect(staffHit!.headers['x-service-event-id']).toBe(hit!.headers['x-service-event-id']);

    await s.api(`/api/v3/core/groups/${staff}/remove_user/`, { json: { pk: user.pk } });
    const removal = (await all.waitFor(2))[1]!;
    expect(JSON.parse(removal.raw.toString()).data.action).toBe('removed');
    expect(JSON.parse((await staffOnly.waitFor(2))[1]!.raw.toString()).data.action).toBe('removed');
  });

  test('user_updated lists the changed fields; user_deactivated on deactivation; only access-group members reach the staff app', async () => {
    const outsider = await createUser('outsider');
    const insider = await createUser('insider', [staff]);
    await all.waitFor(1); // the insider's "added" event, heard by both apps
    await staffOnly.waitFor(1);
    all.received.length = 0;
    staffOnly.received.length = 0;

    await s.api(`/api/v3/core/users/${outsider.pk}/`, { method: 'PATCH', json: { name: 'Outsider Renamed' } });
    await s.api(`/api/v3/core/users/${insider.pk}/`, {
      method: 'PATCH',
      json: { email: 'insider2@example.com', attributes: { avatar: 'https://a/b.png' } },
    });
    await s.api(`/api/v3/core/users/${insider.pk}/`, { method: 'PATCH', json: { is_active: false } });
    await s.api(`/api/v3/core/users/${insider.pk}/`, { method: 'PATCH', json: { name: 'insider' } }); // no change: no event

    // Different users' events may arrive in either order (deliveries run side by side); each user's in the order
    // they happened (a stable sort by user keeps it).
    const users = [outsider.uuid, insider.uuid];
    const bodies = (await all.waitFor(3))
      .map((r) => JSON.parse(r.raw.toString()))
      .sort((a, b) => users.indexOf(a.data.user_id) - users.indexOf(b.data.user_id));
    expect(bodies.map((b) => [b.event_type, b.data])).toEqual([
      ['user_updated', { user_id: outsider.uuid, user_email: 'outsider@example.com', changed: ['name'] }],
      ['user_updated', { user_id: insider.uuid, user_email: 'insider2@example.com', changed: ['email', 'attributes'] }],
      ['user_deactivated', { user_id: insider.uuid, user_email: 'insider2@example.com' }],
    ]);
    const staffBodies = (await staffOnly.waitFor(2)).map((r) => JSON.parse(r.raw.toString()).event_type);
    expect(staffBodies).toEqual(['user_updated', 'user_deactivated']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(all.received).toHaveLength(3);
    expect(staffOnly.received).toHaveLength(2);
  });

  test('a receiver answering 500 twice then 200 gets exactly 3 attempts with one event id; the log shows them', async () => {
    all.respond = (_, i) => (i < 2 ? 500 : 200);
    const user = await createUser('flaky');
    await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { name: 'Flaky Renamed' } });
    const hits = await all.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(all.received).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers['x-service-event-id'])).size).toBe(1);
    expect(new Set(hits.map((h) => h.raw.toString())).size).toBe(1);
    expect(hits.every((h) => verify(h.raw, h.headers['x-service-signature']))).toBe(true);

    const log = await s.api('/api/v3/events/deliveries/?app=everyone&status=delivered');
    const delivery = log.body.results.find((d: { event_id: string }) => d.event_id === hits[0]!.headers['x-service-event-id']);
    expect(delivery).toMatchObject({
      status: 'delivered',
      attempts: 3,
      last_status_code: 200,
      event_type: 'user_updated',
      kind: 'webhook',
    });
    expect(delivery.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
  });

  test('a dead receiver fails after 4 attempts (backoff doubling); redelivery then succeeds', async () => {
    all.respond = () => 503;
    const user = await createUser('unlucky');
    await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { name: 'Unlucky Renamed' } });
    const hits = await all.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(all.received).toHaveLength(4);
    const gaps = hits.slice(1).map((h, i) => h.at - hits[i]!.at);
    // Exponential backoff from webhooks.backoff_seconds = 0.05: no retry comes sooner than 50, 100, 200 ms.
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(50 * 2 ** i - 5));

    const failed = await s.api('/api/v3/events/deliveries/?status=failed');
    const delivery = failed.body.results.find((d: { event_id: string }) => d.event_id === hits[0]!.headers['x-service-event-id']);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 4, last_status_code: 503 });

    all.respond = () => 200;
    const again = await s.api(`/api/v3/events/deliveries/${delivery.id}/redeliver/`, { method: 'POST' });
    expect(again.status).toBe(202);
    const retry = (await all.waitFor(5))[4]!;
    expect(retry.headers['x-service-event-id']).toBe(hits[0]!.headers['x-service-event-id']);
    expect(retry.raw.equals(hits[0]!.raw)).toBe(true);
    for (let i = 0; i < 50; i++) {
      const now = (await s.api(`/api/v3/events/deliveries/${delivery.id}/`)).body;
      if (now.status === 'delivered') return expect(now.attempts).toBe(5);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('redelivery was not recorded as delivered');
  });

  test('a 4xx answer fails at once without retry', async () => {
    all.respond = () => 410;
    const user = await createUser('gone');
    await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { name: 'Gone Renamed' } });
    await all.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(all.received).toHaveLength(1);
  });

  test('a failed request writes no event', async () => {
    await createUser('dupe');
    all.received.length = 0;
    const dup = await s.api('/api/v3/core/users/', {
      json: { username: 'dupe2@example.com', email: 'DUPE@example.com', name: 'x', groups: [staff] },
    });
    expect(dup.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(all.received).toHaveLength(0);
  });

  test('a change that fails after its first event row is written leaves no event and no user', async () => {
    const db = s.db.database.db;
    const first = (await s.api('/api/v3/core/groups/', { json: { name: 'first' } })).body.pk;
    const poison = (await s.api('/api/v3/core/groups/', { json: { name: 'poison' } })).body.pk;
    // The database refuses the second event row of the change, after the first one was written.
    await sql`create function refuse_poison() returns trigger language plpgsql as $$
      begin if new.group_name = 'poison' then raise exception 'refused by the test'; end if; return new; end $$`.execute(db);
    await sql`create trigger refuse_poison before insert on outbox for each row execute function refuse_poison()`.execute(db);
    try {
      const outboxBefore = await db
        .selectFrom('outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      all.received.length = 0;
      const failed = await s.api('/api/v3/core/users/', {
        json: { username: 'torn@example.com', email: 'torn@example.com', name: 'Torn', groups: [first, poison] },
      });
      expect(failed.status).toBe(500);
      const outboxAfter = await db
        .selectFrom('outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(outboxAfter.n)).toBe(Number(outboxBefore.n));
      expect((await s.api('/api/v3/core/users/?email=torn@example.com')).body.results).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(all.received).toHaveLength(0);
    } finally {
      await sql`drop trigger refuse_poison on outbox`.execute(db);
      await sql`drop function refuse_poison()`.execute(db);
    }
  });

  test('delivery log API: scopes, validation, unknown ids', async () => {
    const reader = await s.token(['users:read']);
    expect((await s.api('/api/v3/events/deliveries/', { token: reader })).status).toBe(403);
    expect(await s.api('/api/v3/events/deliveries/?status=lost')).toMatchObject({
      status: 400,
      body: { status: [expect.stringContaining('pending, delivered, failed')] },
    });
    expect((await s.api('/api/v3/events/deliveries/00000000-0000-4000-8000-000000000000/redeliver/', { method: 'POST' })).status).toBe(404);
  });
});
