/**
 * /metrics (Prometheus) and request ids: access as configured (bearer token; loopback only without one, never
 * behind a trusted proxy; a port of its own), the series an operator alerts on, labels by route template, and a
 * request id on the answer and on every log line of the request.
 */
import { captureLog } from '../helpers/log-capture.js';
import { freePort } from '../helpers/ports.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, pkceRequest, redeemCode, submit } from '../helpers/http-client.js';
import { eventually } from '../helpers/eventually.js';
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { migratedDataDir, testSettings } from '../helpers/settings.js';
import { createLogger } from '../../src/observability/logger.js';
import { startWorkerService } from '../../src/service.js';

const CALLBACK = 'http://127.0.0.1:1/callback';
const TOKEN = 'metrics-token-0123456789';

/** The value of one series in an exposition, 0 when absent. */
function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('with a metrics token', () => {
  let idp: OidcTestServer;
  const { logger, lines } = captureLog();

  beforeAll(async () => {
    idp = await startOidcServer('pglite', CALLBACK, [{ slug: 'wiki', access_group: 'staff' }], {
      logger,
      overrides: { metrics: { enabled: true, token: TOKEN, port: 0 } },
    });
  });
  afterAll(async () => idp?.close());

  const scrape = async (authorization = `Bearer ${TOKEN}`) => {
    const response = await fetch(`${idp.url}/metrics`, { headers: { Authorization: authorization } });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };

  test('the token is required; a wrong one is told nothing', async () => {
    expect((await scrape('')).status).toBe(404);
    expect((await scrape('Bearer wrong-token-0123456789')).status).toBe(404);
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.type).toContain('text/plain');
    for (const name of [
      'idp_http_request_duration_seconds_bucket',
      'idp_outbox_pending_events',
      'idp_outbox_oldest_pending_age_seconds',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(ok.text).toContain(name);
    }
  });

  test('sign-ins by outcome and method, tokens by grant type, requests by route template (never a raw id)', async () => {
    const before = (await scrape()).text;
    const staff = await idp.groupUuid('staff');
    const member = await idp.user({ groups: [staff] });
    const outsider = await idp.user();

    const flow = await httpSignIn(new CookieClient(), idp.apps.wiki!, idp.url, member.email, PASSWORD);
    expect((await redeemCode(idp.apps.wiki!, idp.url, flow)).status).toBe(200);
    // A wrong password, then a user outside the access group.
    const http = new CookieClient();
    const emailPage = await http.follow(await http.request((await pkceRequest(idp.apps.wiki!, idp.url)).url.href), CALLBACK);
    if (emailPage instanceof URL) throw new Error('expected the sign-in page');
    const passwordPage = await submit(http, emailPage, { email: member.email });
    expect((await submit(http, passwordPage, { password: 'not the password' })).status).toBe(400);
    const denied = await httpSignIn(new CookieClient(), idp.apps.wiki!, idp.url, outsider.email, PASSWORD);
    expect(denied.callback.searchParams.get('error')).toBe('access_denied');

    const after = (await scrape()).text;
    const delta = (series: string) => valueOf(after, series) - valueOf(before, series);
    expect(delta('idp_sign_ins_total{outcome="success",method="pwd"}')).toBe(1);
    expect(delta('idp_sign_ins_total{outcome="failure",method="pwd"}')).toBe(1);
    expect(delta('idp_sign_ins_total{outcome="denied",method="pwd"}')).toBe(1);
    expect(delta('idp_tokens_issued_total{grant_type="authorization_code"}')).toBe(1);
    expect(after).toMatch(/idp_http_request_duration_seconds_count\{method="GET",route="oidc:authorization",status="303"\} \d+/);
    expect(after).toMatch(/route="\/if\/flow\/:slug\/:uid[^"]*"/);
    const routes = [...after.matchAll(/route="([^"]*)"/g)].map((match) => match[1]!);
    expect(routes.filter((route) => /[0-9a-f]{8}-|[A-Za-z0-9_-]{30,}/.test(route))).toEqual([]);
  });

  test('the outbox backlog: events waiting for the relay, and the age of the oldest', async () => {
    const staff = await idp.groupUuid('staff');
    const user = await idp.user();
    expect((await idp.api(`/api/v3/core/groups/${staff}/add_user/`, { json: { pk: user.pk } })).status).toBe(204);
    const text = (await scrape()).text;
    expect(valueOf(text, 'idp_outbox_pending_events')).toBeGreaterThanOrEqual(1); // no relay runs in this server
    expect(valueOf(text, 'idp_outbox_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
  });

  test('the read cache: on while change notices arrive, and what a sign-in and a UserInfo leave in it', async () => {
    const staff = await idp.groupUuid('staff');
    const user = await idp.user({ groups: [staff] });
    const tokens = (
      await redeemCode(idp.apps.wiki!, idp.url, await httpSignIn(new CookieClient(), idp.apps.wiki!, idp.url, user.email, PASSWORD))
    ).body;
    expect(
      (await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status,
    ).toBe(200);
    const text = (await scrape()).text;
    expect(valueOf(text, 'idp_read_cache_live')).toBe(1);
    expect(valueOf(text, 'idp_read_cache_entries')).toBeGreaterThanOrEqual(3); // the tokens, the grant, the user
  });

  test("a request id on the answer and on every log line of the request: the caller's when it is a plain token", async () => {
    const given = await fetch(`${idp.url}/-/health/live/`, { headers: { 'X-Request-Id': 'lb-42.abc' } });
    expect(given.headers.get('x-request-id')).toBe('lb-42.abc');
    const replaced = await fetch(`${idp.url}/-/health/live/`, { headers: { 'X-Request-Id': 'has spaces <and> more' } });
    const id = replaced.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.filter((line) => line.request_id === 'lb-42.abc').map((line) => line.msg)).toEqual(['request']);
    expect(lines.find((line) => line.request_id === id)).toMatchObject({ msg: 'request', path: '/-/health/live/' });
    // Lines outside any request carry none.
    expect(lines.some((line) => line.msg !== 'request' && line.request_id !== undefined && line.component === undefined)).toBe(false);
  });
});

describe('without a token', () => {
  test('loopback callers may read /metrics; behind a trusted proxy nobody may', async () => {
    const direct = await startOidcServer('pglite', CALLBACK, [{ slug: 'wiki' }], {
      overrides: { metrics: { enabled: true, token: '', port: 0 } },
    });
    try {
      expect((await fetch(`${direct.url}/metrics`)).status).toBe(200);
    } finally {
      await direct.close();
    }
    const proxied = await startOidcServer('pglite', CALLBACK, [{ slug: 'wiki' }], {
      overrides: {
        metrics: { enabled: true, token: '', port: 0 },
        server: { host: '127.0.0.1', port: 0, trust_proxy: true, proxy_hops: 1 },
      },
    });
    try {
      expect((await fetch(`${proxied.url}/metrics`)).status).toBe(404);
    } finally {
      await proxied.close();
    }
  });

  test('metrics.port: a listener of its own serves /metrics, the main one does not; disabled, neither', async () => {
    const port = await freePort();
    const idp = await startOidcServer('pglite', CALLBACK, [{ slug: 'wiki' }], {
      overrides: { metrics: { enabled: true, token: '', port } },
    });
    try {
      expect((await fetch(`${idp.url}/metrics`)).status).toBe(404);
      const own = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain('idp_http_request_duration_seconds');
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await idp.close();
    }
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow(); // closed with the service
    const off = await startOidcServer('pglite', CALLBACK, [{ slug: 'wiki' }], {
      overrides: { metrics: { enabled: false, token: '', port: 0 } },
    });
    try {
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

test("idp worker's metrics listener answers the health routes (its health check): ready while its database and Redis answer", async () => {
  const port = await freePort();
  const settings = await testSettings({
    data_dir: migratedDataDir('idp-metrics-'),
    metrics: { enabled: true, token: 'a-metrics-token-0123456789', port },
    redis: { url: REDIS_URL, prefix: uniquePrefix() },
    worker: { embedded: false },
  });
  const worker = await startWorkerService(settings, { logger: createLogger('silent') });
  try {
    const live = await fetch(`http://127.0.0.1:${port}/-/health/live/`);
    expect(live.status).toBe(200);
    expect(live.headers.get('x-idp-instance')).toMatch(/^[0-9a-f-]{36}$/);
    // Unauthenticated, as on the main listener: the token guards /metrics only.
    const ready = await eventually('the worker is ready', async () => {
      const answer = await fetch(`http://127.0.0.1:${port}/-/health/ready/`);
      return answer.status === 200 ? answer : undefined;
    });
    expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
  } finally {
    await worker.close();
  }
}, 60_000);
