/**
 * Hardening: HSTS on https, the API's per-token limit, throttled client authentication at the token
 * endpoint, blank names refused on update as on create, and an account lockout that is a wait per address
 * (nobody can lock a user out from everywhere).
 */
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { startTestServer } from '../helpers/server.js';
import { CookieClient, formOf, pkceRequest, redeemCode } from '../helpers/http-client.js';
import { postToken } from '../helpers/oidc-rp.js';

const callback = 'http://127.0.0.1:1/callback';

test('Strict-Transport-Security is sent when the base URL is https, not otherwise', async () => {
  const secure = await startTestServer('pglite', { issuer: { base_url: 'https://id.example.com' } });
  const plain = await startTestServer('pglite');
  try {
    for (const path of ['/-/health/live/', '/api/v3/core/users/']) {
      expect((await fetch(secure.url + path)).headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
      expect((await fetch(plain.url + path)).headers.get('strict-transport-security')).toBeNull();
    }
  } finally {
    await secure.close();
    await plain.close();
  }
});

test('the API limits each token per minute: 429 with Retry-After, other tokens unaffected', async () => {
  const s = await startTestServer('pglite', { rate_limits: { api_per_minute: 5 } });
  try {
    const busy = await s.token();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await s.api('/api/v3/core/users/', { token: busy })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const throttled = await s.api('/api/v3/core/groups/', { token: busy });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds?\.$/) });
    expect((await s.api('/api/v3/core/users/', { token: await s.token() })).status).toBe(200);
  } finally {
    await s.close();
  }
});

describe('sign-in and token endpoint', () => {
  let idp: OidcTestServer;
  beforeAll(async () => {
    idp = await startOidcServer('pglite', callback, [{ slug: 'wiki' }, { slug: 'crm' }], {
      overrides: {
        server: { trust_proxy: true },
        rate_limits: { account_failures: 3, account_failures_all_addresses: 5, account_window_seconds: 900 },
      },
    });
  });
  afterAll(async () => idp?.close());

  test('failed client authentication is throttled per client and address, even for the right secret then', async () => {
    const app = idp.apps.crm!; // the sign-in tests below redeem codes for wiki from this same address
    const attempt = (secret: string) =>
      postToken(idp.url, { grant_type: 'refresh_token', refresh_token: 'x', client_id: app.client_id, client_secret: secret });
    for (let i = 0; i < 20; i++) expect((await attempt(`wrong secret ${i}`)).status).toBe(401);
    const refused = await attempt(app.client_secret);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('invalid_client');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = idp.apps.wiki!;
    const fine = await postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: other.client_id,
      client_secret: other.client_secret,
    });
    expect(fine.body.error).toBe('invalid_grant');
  });

  /** A password attempt from `address` (as the proxy reports it); returns the status and the alert text. */
  async function passwordFrom(address: string, email: string, password: string) {
    const http = new CookieClient();
    const request = await pkceRequest(idp.apps.wiki!, idp.url);
    const page = await http.follow(await http.request(request.url.href));
    if (page instanceof URL) throw new Error('no page');
    const form = formOf(page);
    const answer = await http.request(form.action.replace(/email$/, 'password'), {
      form: { ...form.fields, email, password },
      headers: { 'X-Forwarded-For': address },
    });
    const reached = await http.follow(answer, idp.apps.wiki!.redirect_uri);
    if (reached instanceof URL)
      return { status: 303, alert: '', code: await redeemCode(idp.apps.wiki!, idp.url, { request, callback: reached }) };
    return { status: answer.status, alert: /role="alert">([^<]*)</.exec(answer.text)?.[1] ?? '' };
  }

  test('a lock from one address is a stated wait there and does not lock the user out from another', async () => {
    const user = await idp.user();
    for (let i = 0; i < 3; i++) expect((await passwordFrom('198.51.100.1', user.email, `wrong ${i}`)).status).toBe(400);
    const locked = await passwordFrom('198.51.100.1', user.email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.alert).toMatch(/^Too many failed sign-in attempts for this account\. Try again in \d+ minutes?\.$/);
    const elsewhere = await passwordFrom('198.51.100.2', user.email, PASSWORD);
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.code!.status).toBe(200);
  });

  test('many addresses failing on one account meet the all-address limit, also a stated wait', async () => {
    const user = await idp.user();
    for (let i = 0; i < 5; i++) expect((await passwordFrom(`192.0.2.${i}`, user.email, 'wrong')).status).toBe(400);
    const refused = await passwordFrom('192.0.2.200', user.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.alert).toMatch(/^This account has had too many failed sign-in attempts\. Try again in \d+ minutes?\.$/);
  });
});

test('blank or white-space names are refused on update as on create', async () => {
  const s = await startTestServer('pglite');
  try {
    const created = await s.api('/api/v3/core/users/', {
      json: { username: 'blank@example.com', email: 'blank@example.com', name: '   ' },
    });
    expect(created).toMatchObject({ status: 400, body: { name: ['This field may not be blank.'] } });
    const user = (await s.api('/api/v3/core/users/', { json: { username: 'b2@example.com', email: 'b2@example.com', name: 'B' } })).body;
    for (const name of ['', '   ', '\t\n']) {
      const patched = await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { name } });
      expect(patched).toMatchObject({ status: 400, body: { name: ['This field may not be blank.'] } });
      expect((await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { username: name } })).status).toBe(400);
    }
    const group = (await s.api('/api/v3/core/groups/', { json: { name: 'g' } })).body;
    expect((await s.api('/api/v3/core/groups/', { json: { name: ' ' } })).body).toEqual({ name: ['This field may not be blank.'] });
    expect((await s.api(`/api/v3/core/groups/${group.pk}/`, { method: 'PATCH', json: { name: ' ' } })).body).toEqual({
      name: ['This field may not be blank.'],
    });
    expect((await s.api(`/api/v3/core/users/${user.pk}/`)).body.name).toBe('B');
  } finally {
    await s.close();
  }
});
