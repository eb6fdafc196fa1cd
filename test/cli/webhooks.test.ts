/** `idp webhooks test|list|enable` as a real process: a signed ping to a real receiver; the receiver state on a shared PostgreSQL database. */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { lastLine, runIdp } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const SECRET = 'ping-secret-0123456789abcdef';
const withPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

withPostgres('idp webhooks (PostgreSQL: the CLI and the test share the database)', () => {
  let db: TestDatabase;
  let receiver: Receiver;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await openTestDatabase('postgres');
    receiver = await startReceiver();
    env = {
      DATABASE_URL: db.url!,
      IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-webhooks-')),
      NODE_CONFIG: JSON.stringify({
        secrets: { key: 'k'.repeat(64) },
        webhooks: { allow_insecure_loopback: true },
        applications: [
          {
            slug: 'wiki',
            name: 'Wiki',
            client_id: 'wiki',
            client_secret: 'wiki-secret-0123456789',
            redirect_uris: ['https://wiki.example/cb'],
            webhook: { url: `${receiver.url}/hook`, secret: SECRET },
          },
          { slug: 'crm', name: 'CRM', client_id: 'crm', client_secret: 'crm-secret-0123456789', redirect_uris: ['https://crm.example/cb'] },
        ],
      }),
    };
  });
  afterAll(async () => {
    await receiver?.close();
    await db?.close();
  });

  test('test sends a ping signed both ways; a failing receiver or an app without a webhook is exit 1 with one line', async () => {
    const ok = await runIdp(['webhooks', 'test', 'wiki'], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ping [0-9a-f-]{36} to http:\/\/127\.0\.0\.1:\d+\/hook answered 200/);
    const [hit] = await receiver.waitFor(1);
    const body = hit!.raw.toString('utf8');
    expect(JSON.parse(body)).toEqual({ event_type: 'ping', timestamp: expect.any(String), data: { application: 'wiki' } });
    expect(hit!.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(hit!.raw).digest('hex')}`);
    const headers = Object.fromEntries(Object.entries(hit!.headers).map(([name, value]) => [name, String(value)]));
    expect(new Webhook(Buffer.from(SECRET).toString('base64')).verify(body, headers)).toMatchObject({ event_type: 'ping' });

    receiver.respond = () => 500;
    const failing = await runIdp(['webhooks', 'test', 'wiki'], env);
    expect(failing.code).toBe(1);
    expect(lastLine(failing.stderr)).toMatch(/^error: ping [0-9a-f-]{36} to .* answered 500/);
    receiver.respond = () => 200;

    const none = await runIdp(['webhooks', 'test', 'crm'], env);
    expect(none.code).toBe(1);
    expect(lastLine(none.stderr)).toBe('webhook of application "crm" (it has none configured) not found');
    const unknown = await runIdp(['webhooks', 'test', 'nope'], env);
    expect(lastLine(unknown.stderr)).toBe('application "nope" not found');
  }, 90_000);

  test('list shows a receiver disabled by a 410 and why; enable delivers to it again', async () => {
    await db.store.events.disableEndpoint('wiki', `${receiver.url}/hook`, 'the receiver answered 410 Gone');
    const listed = await runIdp(['webhooks', 'list'], env);
    expect(listed.code).toBe(0);
    const lines = listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s{2,}/));
    expect(lines[0]).toEqual(['APPLICATION', 'URL', 'STATE']);
    expect(lines[1]).toEqual([
      'wiki',
      `${receiver.url}/hook`,
      expect.stringMatching(/^disabled since \S+: the receiver answered 410 Gone$/),
    ]);
    expect(lines).toHaveLength(2); // crm has no webhook

    const enabled = await runIdp(['webhooks', 'enable', 'wiki'], env);
    expect(enabled.stdout.trim()).toBe('webhooks to wiki are enabled again');
    expect(await db.store.events.disabledEndpoint('wiki')).toBeUndefined();
    expect((await runIdp(['webhooks', 'enable', 'wiki'], env)).stdout.trim()).toBe('webhooks to wiki were not disabled');
    expect((await runIdp(['webhooks', 'list'], env)).stdout).toMatch(/^wiki\s+\S+\s+enabled$/m);
  }, 90_000);
});
