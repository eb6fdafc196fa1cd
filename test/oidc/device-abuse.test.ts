/**
 * Device sign-in (RFC 8628) under attack and misuse, over plain HTTP: polling too fast (slow_down), an expired code
 * (expired_token, and "expired" on the page), guessing user codes (limited per client address, counted before the
 * lookup, the right code too), a forged confirmation (the engine's xsrf value), and the configuration's rules.
 * Both stores; the limits on the real Redis.
 */
import { engines } from '../helpers/database.js';
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { CookieClient, formOf, submit } from '../helpers/http-client.js';
import { postToken } from '../helpers/oidc-rp.js';
import { startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { DEVICE_CODE_GRANT } from '../../src/domain/applications.js';
import { loadSettings, ConfigError } from '../../src/settings/load.js';
import type { ApplicationSettings } from '../../src/settings/schema.js';

const POLL_SECONDS = 2;
const TTL_SECONDS = 5;

interface Started {
  device_code: string;
  user_code: string;
  verification_uri: string;
  interval: number;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(engines)('device sign-in abuse (%s)', (engine) => {
  let guarded: OidcTestServer;
  let quick: OidcTestServer;
  const tv: Partial<ApplicationSettings> & { slug: string } = {
    slug: 'tv',
    name: 'Living Room TV',
    client_type: 'public',
    grant_types: [DEVICE_CODE_GRANT],
  };

  beforeAll(async () => {
    const limits = { redis: { url: REDIS_URL, prefix: uniquePrefix() } };
    [guarded, quick] = await Promise.all([
      startOidcServer(engine, 'http://127.0.0.1:1/callback', [tv], {
        overrides: {
          ...limits,
          // Behind a proxy: the tests speak from several client addresses (X-Forwarded-For).
          server: { host: '127.0.0.1', port: 0, trust_proxy: true },
          device_flow: { code_ttl_seconds: 600, poll_interval_seconds: POLL_SECONDS },
          rate_limits: { user_code_attempts: 4, user_code_window_seconds: 900 },
        },
        redisServices: true,
      }),
      startOidcServer(engine, 'http://127.0.0.1:1/callback', [tv], {
        overrides: { ...limits, device_flow: { code_ttl_seconds: TTL_SECONDS, poll_interval_seconds: POLL_SECONDS } },
        redisServices: true,
      }),
    ]);
  });
  afterAll(async () => Promise.all([guarded?.close(), quick?.close()]));

  async function startDevice(idp: OidcTestServer): Promise<Started> {
    const response = await fetch(`${idp.url}/application/o/device/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: idp.apps.tv!.client_id, scope: 'openid' }).toString(),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('no-store');
    return (await response.json()) as Started;
  }
  const poll = (idp: OidcTestServer, started: Started) =>
    postToken(idp.url, { grant_type: DEVICE_CODE_GRANT, device_code: started.device_code, client_id: idp.apps.tv!.client_id });

  /** The code typed at the device page from `address`; returns the answer. */
  async function typeCode(idp: OidcTestServer, code: string, address: string) {
    const http = new CookieClient();
    const headers = { 'X-Forwarded-For': address };
    const page = await http.request(`${idp.url}/device/`, { headers });
    expect(page.status).toBe(200);
    const form = formOf(page);
    return http.request(form.action, { form: { ...form.fields, user_code: code }, headers });
  }

  test('polling faster than the interval answers slow_down; pending before and after', async () => {
    const started = await startDevice(guarded);
    expect(started.interval).toBe(POLL_SECONDS);
    const first = await poll(guarded, started);
    expect([first.status, first.body.error]).toEqual([400, 'authorization_pending']);
    expect(first.headers.get('cache-control')).toContain('no-store');
    const second = await poll(guarded, started);
    expect([second.status, second.body.error]).toEqual([400, 'slow_down']);
    expect(second.headers.get('cache-control')).toContain('no-store');
    await wait(POLL_SECONDS * 1000);
    const third = await poll(guarded, started);
    expect([third.status, third.body.error]).toEqual([400, 'authorization_pending']);
  });

  test('guessing user codes: each typed code counts for its address; over the limit even the right one is refused unchecked', async () => {
    const started = await startDevice(guarded);
    const guesser = '203.0.113.7';
    for (let i = 0; i < 4; i++) {
      const wrong = await typeCode(guarded, `BCDF-GH${'JKLM'[i]}${'NPQR'[i]}`, guesser);
      expect(wrong.status).toBe(200);
      expect(wrong.text).toContain('That code is not right.');
    }
    const refused = await typeCode(guarded, started.user_code, guesser);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many codes typed');
    expect(refused.text).not.toContain('Living Room TV');
    // Nothing was looked up or changed: the device still waits, and the person's own address gets through.
    await wait(POLL_SECONDS * 1000);
    expect((await poll(guarded, started)).body.error).toBe('authorization_pending');
    const owner = await typeCode(guarded, started.user_code, '198.51.100.23');
    expect(owner.status).toBe(200);
    expect(owner.text).toContain('Allow Living Room TV?');
  });

  test('a confirmation without the page’s xsrf value (a forged cross-site POST) allows nothing', async () => {
    const started = await startDevice(guarded);
    const http = new CookieClient();
    const headers = { 'X-Forwarded-For': '192.0.2.44' };
    await http.request(`${guarded.url}/device/`, { headers });
    const forged = await http.request(`${guarded.url}/device/`, {
      form: { xsrf: 'forged', user_code: started.user_code, confirm: 'yes' },
      headers,
    });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('This page had expired. Type the code again.');
    await wait(POLL_SECONDS * 1000);
    expect((await poll(guarded, started)).body.error).toBe('authorization_pending');
    // The page's own form (its xsrf value) is what gets through to the confirmation.
    const page = await http.request(`${guarded.url}/device/`, { headers });
    const confirmation = await submit(http, page, { user_code: started.user_code });
    expect(confirmation.text).toContain('Allow Living Room TV?');
  });

  test('an expired code: the device hears expired_token, the page says so', async () => {
    const started = await startDevice(quick);
    await wait(TTL_SECONDS * 1000 + 500);
    const late = await poll(quick, started);
    expect([late.status, late.body.error]).toEqual([400, 'expired_token']);
    const typed = await typeCode(quick, started.user_code, '127.0.0.1');
    expect(typed.text).toContain('That code has expired.');
  });

  test('an unknown device code is invalid_grant, not expired', async () => {
    const unknown = await postToken(quick.url, {
      grant_type: DEVICE_CODE_GRANT,
      device_code: 'x'.repeat(43),
      client_id: quick.apps.tv!.client_id,
    });
    expect([unknown.status, unknown.body.error]).toEqual([400, 'invalid_grant']);
  });
});

describe('device sign-in configuration', () => {
  const base = { name: 'TV', client_id: 'tv', client_type: 'public', grant_types: [DEVICE_CODE_GRANT] };

  test('a public application may have the device_code grant alone, without redirect URIs', async () => {
    const settings = await loadSettings({ overrides: { applications: [{ ...base, slug: 'tv' }] }, readOnly: true });
    expect(settings.applications[0]!.grant_types).toEqual([DEVICE_CODE_GRANT]);
    expect(settings.device_flow).toEqual({ code_ttl_seconds: 600, poll_interval_seconds: 5 });
    expect(settings.rate_limits).toMatchObject({ user_code_attempts: 20, user_code_window_seconds: 900 });
  });

  test('the slug "device" is reserved (the shared device endpoint)', async () => {
    const error = await loadSettings({ overrides: { applications: [{ ...base, slug: 'device' }] }, readOnly: true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^config: applications\[0\]\.slug "device" is reserved/);
  });
});
