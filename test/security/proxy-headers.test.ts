/**
 * What clients say about where they are is not trusted: URLs come from issuer.base_url whatever the Host,
 * X-Forwarded-Host or request target say, and behind proxies only the configured number of X-Forwarded-For
 * entries (from the right) count, so a client cannot pick its own address to dodge the per-IP limit.
 */
import http from 'node:http';
import net from 'node:net';
import { startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, formOf, pkceRequest } from '../helpers/http-client.js';

const callback = 'http://127.0.0.1:1/callback';

/** A GET with headers fetch would not send (Host). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject);
  });
}

/** A request with an absolute-form target: `GET http://evil.example/path HTTP/1.1`. */
function absoluteFormGet(baseUrl: string, target: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () =>
      socket.write(`GET ${target} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`),
    );
    let raw = '';
    socket.on('data', (chunk) => (raw += chunk));
    socket.on('end', () => resolve(raw));
    socket.on('error', reject);
  });
}

describe('URLs come from the configured base URL', () => {
  let idp: OidcTestServer;
  beforeAll(async () => {
    idp = await startOidcServer('pglite', callback, [{ slug: 'wiki' }], { overrides: { server: { trust_proxy: true } } });
  });
  afterAll(async () => idp?.close());

  const urlsIn = (document: Record<string, unknown>) =>
    Object.values(document).filter((value): value is string => typeof value === 'string' && /^https?:/.test(value));

  test.each([
    ['Host', { Host: 'evil.example' }],
    ['X-Forwarded-Host', { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' }],
  ])('discovery with a poisoned %s lists only base-URL endpoints', async (_name, headers) => {
    const answer = await rawGet(`${idp.url}/application/o/wiki/.well-known/openid-configuration`, headers);
    expect(answer.status).toBe(200);
    const urls = urlsIn(JSON.parse(answer.body));
    expect(urls.length).toBeGreaterThan(5);
    for (const url of urls) expect(url.startsWith(`${idp.url}/`)).toBe(true);
    expect(answer.body).not.toContain('evil.example');
  });

  test('an absolute-form request target does not leak into discovery', async () => {
    const raw = await absoluteFormGet(idp.url, 'http://evil.example/application/o/wiki/.well-known/openid-configuration');
    expect(raw).toMatch(/^HTTP\/1\.1 200/);
    expect(raw).not.toContain('evil.example');
    expect(raw).toContain(`"jwks_uri":"${idp.url}/application/o/wiki/jwks/"`);
  });

  test('redirects and pagination links use the base URL too', async () => {
    const request = await pkceRequest(idp.apps.wiki!, idp.url);
    const answer = await rawGet(request.url.href, { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example' });
    expect(answer.status).toBe(303);
    expect(answer.headers.location).not.toContain('evil.example');
    const token = await idp.apiToken();
    for (let i = 0; i < 3; i++) await idp.user();
    const page = await rawGet(`${idp.url}/api/v3/core/users/?page_size=1`, { Host: 'evil.example', Authorization: `Bearer ${token}` });
    expect(JSON.parse(page.body).pagination.next).toMatch(new RegExp(`^${idp.url}/api/v3/core/users/\\?`));
  });
});

describe('X-Forwarded-For behind one proxy', () => {
  let idp: OidcTestServer;
  beforeAll(async () => {
    idp = await startOidcServer('pglite', callback, [{ slug: 'wiki' }], {
      overrides: {
        server: { trust_proxy: true, proxy_hops: 1 },
        rate_limits: { ip_per_minute: 3, account_failures: 100, account_window_seconds: 900, interaction_attempts: 5 },
      },
    });
  });
  afterAll(async () => idp?.close());

  /** One failed password attempt as the proxy forwards it: the client-supplied part first, the proxy's entry last. */
  async function failedAttempt(forwardedFor: string): Promise<number> {
    const browser = new CookieClient();
    const page = await browser.follow(await browser.request((await pkceRequest(idp.apps.wiki!, idp.url)).url.href));
    if (page instanceof URL) throw new Error('no page');
    const form = formOf(page);
    const answer = await browser.request(form.action.replace(/email$/, 'password'), {
      form: { ...form.fields, email: `someone-${Math.random()}@example.com`, password: 'wrong password' },
      headers: { 'X-Forwarded-For': forwardedFor },
    });
    return answer.status;
  }

  test('a client rotating the left-hand entries is still one address: the limit holds', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await failedAttempt(`10.0.0.${i}, 203.0.113.7`));
    expect(statuses).toEqual([400, 400, 400, 429]);
  });

  test('another address seen by the proxy has its own budget', async () => {
    expect(await failedAttempt('203.0.113.8')).toBe(400);
  });
});
