/**
 * Webhooks a receiver can trust and a sender that listens: Standard Webhooks signatures beside the spec's
 * X-Service-Signature (checked with the `standardwebhooks` library, not our code), two secrets during a
 * rotation, the receiver's Retry-After honoured, and a 410 Gone disabling the receiver until it is enabled.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { engines } from '../helpers/database.js';
import { startReceiver, type Receiver, type Received } from '../helpers/receiver.js';
import { webhookSettings } from '../helpers/webhooks.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SECRET = 'new-secret-0123456789abcdef';
const PREVIOUS = 'old-secret-0123456789abcdef';

/** A Standard Webhooks verifier holding `secret` (the library takes the key base64-encoded). */
const verifierFor = (secret: string) => new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
const headersOf = (hit: Received) => Object.fromEntries(Object.entries(hit.headers).map(([name, value]) => [name, String(value)]));
const app = (slug: string, url: string, webhook: Record<string, unknown> = {}) => ({
  slug,
  name: slug,
  client_id: `client-${slug}`,
  client_secret: 'secret-secret-secret',
  redirect_uris: ['http://127.0.0.1/cb'],
  webhook: { url, secret: SECRET, ...webhook },
});

describe.each(engines)('webhook hardening (%s)', (engine) => {
  let plain: Receiver;
  let rotating: Receiver;
  let slow: Receiver;
  let gone: Receiver;
  let s: TestServer;

  beforeAll(async () => {
    [plain, rotating, slow, gone] = await Promise.all([startReceiver(), startReceiver(), startReceiver(), startReceiver()]);
    // Retries back off a full minute unless the receiver says otherwise.
    s = await startTestServer(
      engine,
      webhookSettings(
        [
          app('plain', plain.url),
          app('rotating', rotating.url, { previous_secret: PREVIOUS }),
          app('slow', slow.url),
          app('gone', gone.url, { events: ['user_deactivated'] }), // only this test deactivates anyone
        ],
        { webhooks: { timeout_seconds: 1, retries: 3, backoff_seconds: 60, allow_insecure_loopback: true, retry_after_max_seconds: 5 } },
      ),
      { workers: true },
    );
  });
  afterAll(async () => {
    await s?.close();
    for (const receiver of [plain, rotating, slow, gone]) await receiver?.close();
  });
  beforeEach(() => {
    for (const receiver of [plain, rotating, slow, gone]) {
      receiver.received.length = 0;
      receiver.respond = () => 200;
    }
  });

  let n = 0;
  const createUser = async () => {
    n += 1;
    const created = await s.api('/api/v3/core/users/', {
      json: { username: `hook${n}@example.com`, email: `hook${n}@example.com`, name: `Hook ${n}` },
    });
    expect(created.status).toBe(201);
    return created.body as { pk: number; uuid: string };
  };
  const rename = async (pk: number) =>
    expect((await s.api(`/api/v3/core/users/${pk}/`, { method: 'PATCH', json: { name: `Renamed ${Date.now()}` } })).status).toBe(200);

  test('every attempt carries webhook-id, webhook-timestamp and webhook-signature that the Standard Webhooks library accepts', async () => {
    const user = await createUser();
    await rename(user.pk);
    const [hit] = await plain.waitFor(1);
    const headers = headersOf(hit!);
    expect(headers['webhook-id']).toBe(headers['x-service-event-id']);
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(verifierFor(SECRET).verify(hit!.raw.toString('utf8'), headers)).toMatchObject({ event_type: 'user_updated' });
    // The spec's header is unchanged: HMAC-SHA256 of the raw body, hex.
    expect(headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(hit!.raw).digest('hex')}`);
    // A replay with an old timestamp is refused by the library, and so is another secret.
    expect(() =>
      verifierFor(SECRET).verify(hit!.raw.toString('utf8'), {
        ...headers,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600),
      }),
    ).toThrow();
    expect(() => verifierFor(PREVIOUS).verify(hit!.raw.toString('utf8'), headers)).toThrow();
  });

  test('during a rotation both secrets sign webhook-signature; X-Service-Signature uses the new one', async () => {
    const user = await createUser();
    await rename(user.pk);
    const [hit] = await rotating.waitFor(1);
    const headers = headersOf(hit!);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [SECRET, PREVIOUS])
      expect(verifierFor(secret).verify(hit!.raw.toString('utf8'), headers)).toMatchObject({ event_type: 'user_updated' });
    expect(headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(hit!.raw).digest('hex')}`);
  });

  test('a 429 with Retry-After: the next attempt comes after that delay, not the 60 s backoff, same id, new timestamp', async () => {
    const user = await createUser();
    // Earlier tests' events may still arrive here: only this user's event is answered 429 first.
    const mine = (hit: Received) => hit.raw.toString('utf8').includes(user.uuid);
    let seen = 0;
    slow.respond = (hit) => (mine(hit) && seen++ === 0 ? { status: 429, headers: { 'Retry-After': '1' } } : 200);
    await rename(user.pk);
    await waitUntil(async () => slow.received.filter(mine).length >= 2);
    const [first, second] = slow.received.filter(mine);
    const gap = second!.at - first!.at;
    expect(gap).toBeGreaterThanOrEqual(900);
    expect(gap).toBeLessThan(10_000);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verifierFor(SECRET).verify(second!.raw.toString('utf8'), headersOf(second!))).toBeTruthy();
  });

  test('a 410 Gone disables the receiver: later events are not sent until it is enabled again', async () => {
    const deactivate = async () => {
      const user = await createUser();
      expect((await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { is_active: false } })).status).toBe(200);
    };
    gone.respond = () => 410;
    await deactivate();
    await gone.waitFor(1);
    await waitUntil(async () => (await s.db.store.events.disabledEndpoint('gone'))?.url === gone.url);
    expect(await s.db.store.events.disabledEndpoint('gone')).toMatchObject({
      app: 'gone',
      url: gone.url,
      reason: 'the receiver answered 410 Gone',
    });

    gone.respond = () => 200;
    await deactivate();
    await waitUntil(
      async () => (await s.db.store.events.listDeliveries({ app: 'gone', status: 'failed' }, { offset: 0, limit: 50 })).rows.length >= 2,
    );
    expect(gone.received).toHaveLength(1); // the second event was not sent
    const { rows } = await s.db.store.events.listDeliveries({ app: 'gone' }, { offset: 0, limit: 50 });
    expect(rows[0]!.last_error).toContain('idp webhooks enable gone');

    expect(await s.db.store.events.enableEndpoint('gone')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // workers re-read the disabled receivers once a second
    await deactivate();
    await gone.waitFor(2);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
