/**
 * Security checklist, pages and headers part: every kind of response carries the security headers (HTML pages
 * also a frame-free CSP with scripts from our origin only and no-store; token, UserInfo and API responses no-store), and what users
 * type or administrators store about users (names, e-mails, login_hint, group names) is escaped on every page
 * while the API returns it verbatim.
 */
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { CookieClient, formOf, pkceRequest, submit, withoutOwnScripts, type HttpResponse } from '../helpers/http-client.js';
import { RecordingClient, firstPage, jwtClaims, redeem, signInWith, userinfo } from '../helpers/checklist.js';

const CALLBACK = 'http://127.0.0.1:1/callback';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** page: HTML (CSP, no-store); no-store: token, UserInfo and API JSON; other: the common headers only. */
type Kind = 'page' | 'no-store' | 'other';

describe.each(engines)('security checklist: pages and headers (%s)', (engine) => {
  let idp: OidcTestServer;
  let wiki: TestApp;

  beforeAll(async () => {
    idp = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki' }]);
    wiki = idp.apps.wiki!;
  });
  afterAll(async () => idp?.close());

  const get = async (path: string, init: RequestInit = {}): Promise<HttpResponse> => {
    const response = await fetch(idp.url + path, { redirect: 'manual', ...init });
    return { status: response.status, url: response.url, headers: response.headers, text: await response.text() };
  };

  async function emailPage(http: CookieClient, extra: Record<string, string> = {}): Promise<HttpResponse> {
    const page = await firstPage(http, await pkceRequest(wiki, idp.url, extra), CALLBACK);
    if (page instanceof URL) throw new Error(`expected the e-mail page, went to ${page.href}`);
    return page;
  }

  describe('security headers on every kind of response', () => {
    const seen = new Map<string, { kind: Kind; response: HttpResponse }>();
    const keep = (name: string, kind: Kind, response: HttpResponse) => seen.set(name, { kind, response });

    beforeAll(async () => {
      const user = await idp.user();
      const http = new CookieClient();
      const page = await emailPage(http);
      keep('e-mail page', 'page', page);
      const passwordPage = await submit(http, page, { email: user.email });
      keep('password page', 'page', passwordPage);
      keep('wrong password page', 'page', await submit(http, passwordPage, { password: 'wrong password' }));
      keep('CSRF refusal page', 'page', await http.request(formOf(page).action, { form: { email: user.email } }));
      keep('unknown client page', 'page', await get('/application/o/authorize/?client_id=nope'));
      const badRedirect = await pkceRequest(wiki, idp.url, { redirect_uri: 'https://evil.example/cb' });
      keep('unregistered redirect_uri page', 'page', await get(badRedirect.url.pathname + badRedirect.url.search));
      keep('expired interaction page', 'page', await get('/if/flow/wiki/no-such-interaction/'));

      const request = await pkceRequest(wiki, idp.url);
      const callback = await signInWith(http, request, CALLBACK, user.email, PASSWORD);
      const token = await get('/application/o/token/', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          redirect_uri: CALLBACK,
          client_id: wiki.client_id,
          client_secret: wiki.client_secret,
          code_verifier: request.verifier,
        }),
      });
      const tokens = JSON.parse(token.text);
      keep('token response', 'no-store', token);
      keep(
        'token error',
        'no-store',
        await get('/application/o/token/', {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: 'nope',
            client_id: wiki.client_id,
            client_secret: wiki.client_secret,
          }),
        }),
      );
      keep('UserInfo', 'no-store', await get('/application/o/userinfo/', { headers: { Authorization: `Bearer ${tokens.access_token}` } }));
      keep('UserInfo 401', 'no-store', await get('/application/o/userinfo/', { headers: { Authorization: 'Bearer nope' } }));

      // A second user on the same browser: the engine's self-submitting page that ends the first session.
      const other = await idp.user();
      const switching = new RecordingClient();
      await signInWith(switching, await pkceRequest(wiki, idp.url), CALLBACK, user.email, PASSWORD);
      await signInWith(switching, await pkceRequest(wiki, idp.url, { prompt: 'login' }), CALLBACK, other.email, PASSWORD);
      const formPost = switching.responses.find((r) => r.text.includes('<title>Submitting Callback</title>'));
      if (formPost) keep('account switch page', 'page', formPost);

      const hint = new URLSearchParams({ id_token_hint: tokens.id_token, client_id: wiki.client_id });
      keep('automatic sign-out page', 'page', await http.request(`${idp.url}/application/o/wiki/end-session/?${hint}`));
      const confirm = await http.request(`${idp.url}/application/o/wiki/end-session/`);
      keep('sign-out confirmation page', 'page', confirm);
      const signedOut = await http.follow(await submit(http, confirm, {}));
      if (!(signedOut instanceof URL)) keep('signed-out page', 'page', signedOut);
      // The engine answers its errors in JSON unless the client prefers HTML, as browsers do.
      keep(
        'sign-out error page',
        'page',
        await get('/application/o/wiki/end-session/?id_token_hint=not-a-jwt', { headers: { Accept: BROWSER_ACCEPT } }),
      );
      keep(
        'sign-out page without a session',
        'page',
        await get('/application/o/wiki/end-session/', { headers: { Accept: BROWSER_ACCEPT } }),
      );

      keep('discovery', 'other', await get('/application/o/wiki/.well-known/openid-configuration'));
      keep('JWKS', 'other', await get('/application/o/wiki/jwks/'));
      const apiToken = await idp.apiToken();
      keep('API list', 'no-store', await get('/api/v3/core/users/', { headers: { Authorization: `Bearer ${apiToken}` } }));
      keep('API 401', 'no-store', await get('/api/v3/core/users/'));
      keep('API 404', 'no-store', await get('/api/v3/core/users/999999/', { headers: { Authorization: `Bearer ${apiToken}` } }));
      keep('health live', 'other', await get('/-/health/live/'));
      keep('health ready', 'other', await get('/-/health/ready/'));
      keep('avatar', 'other', await get(`/avatars/${user.uuid}.svg`));
      keep('stylesheet', 'other', await get('/static/style.css'));
      keep('unknown path', 'other', await get('/no/such/path'));
    });

    test.each([
      'e-mail page',
      'password page',
      'wrong password page',
      'CSRF refusal page',
      'unknown client page',
      'unregistered redirect_uri page',
      'expired interaction page',
      'account switch page',
      'automatic sign-out page',
      'sign-out confirmation page',
      'signed-out page',
      'sign-out error page',
      'sign-out page without a session',
      'token response',
      'token error',
      'UserInfo',
      'UserInfo 401',
      'discovery',
      'JWKS',
      'API list',
      'API 401',
      'API 404',
      'health live',
      'health ready',
      'avatar',
      'stylesheet',
      'unknown path',
    ])('%s: nosniff, no-referrer, DENY framing; pages: CSP without scripts from elsewhere or framing, no-store', (name) => {
      const entry = seen.get(name);
      expect(entry).toBeDefined();
      const { kind, response } = entry!;
      const header = (key: string) => response.headers.get(key);
      const csp = (header('content-security-policy') ?? '').split(';').map((d) => d.trim());
      // One object, so a failure shows every missing header of the response at once.
      expect({
        nosniff: header('x-content-type-options'),
        referrer: header('referrer-policy'),
        framing: header('x-frame-options'),
        ...(kind === 'page'
          ? {
              html: header('content-type')?.split(';')[0],
              defaultSrc: csp.includes("default-src 'none'"),
              frameAncestors: csp.includes("frame-ancestors 'none'"),
              // Scripts by nonce or hash (the automatic sign-out page) or from our own origin (the passkey script and
              // the WebAuthn library under /static/); never from elsewhere, never 'unsafe-inline'.
              scriptSrc: /^script-src(( '(nonce|sha256)-[^']+')+| 'self')$/.test(
                csp.find((d) => d.startsWith('script-src')) ?? "script-src 'nonce-x'",
              ),
            }
          : {}),
        ...(kind !== 'other' ? { noStore: /\bno-store\b/.test(header('cache-control') ?? '') } : {}),
      }).toEqual({
        nosniff: 'nosniff',
        referrer: 'no-referrer',
        framing: 'DENY',
        ...(kind === 'page' ? { html: 'text/html', defaultSrc: true, frameAncestors: true, scriptSrc: true } : {}),
        ...(kind !== 'other' ? { noStore: true } : {}),
      });
    });
  });

  describe('user-supplied text is escaped on pages and verbatim in JSON', () => {
    const NAME = `<img src=x onerror=alert(1)>"'&`;
    const GROUP = `<script>alert("g")</script>&'`;
    const HINT = '"><script>alert(1)</script>';

    /** No raw markup from the hostile values: no tag opened by them anywhere on the page. */
    function expectNoRawMarkup(page: HttpResponse) {
      expect(withoutOwnScripts(page.text)).not.toMatch(/<script|<img|<svg/i);
      expect(page.text).not.toContain(NAME);
      expect(page.text).not.toContain(GROUP);
    }

    test('login_hint prefilled on the e-mail page is escaped', async () => {
      const page = await emailPage(new CookieClient(), { login_hint: HINT });
      expect(page.status).toBe(200);
      expect(page.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
      expectNoRawMarkup(page);
    });

    test('an e-mail with markup is escaped on the password page, its failure alert, and the invalid-address alert', async () => {
      const http = new CookieClient();
      const page = await emailPage(http);
      const email = `"><img/src=x/onerror=alert(1)>@example.com`;
      const escaped = '&quot;&gt;&lt;img/src=x/onerror=alert(1)&gt;@example.com';
      const passwordPage = await submit(http, page, { email });
      expect(passwordPage.status).toBe(200);
      expect(passwordPage.text).toContain(`<strong>${escaped}</strong>`);
      expectNoRawMarkup(passwordPage);
      const failed = await submit(http, passwordPage, { password: 'wrong password' });
      expect(failed.status).toBe(400);
      expect(failed.text).toContain('role="alert"');
      expect(failed.text).toContain(escaped);
      expectNoRawMarkup(failed);
      const invalid = await submit(http, page, { email: '<script>alert(1)</script> <img src=x onerror=alert(1)>' });
      expect(invalid.status).toBe(400);
      expect(invalid.text).toContain('role="alert"');
      expect(invalid.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;');
      expectNoRawMarkup(invalid);
    });

    test('a user and group with markup: escaped on every sign-in and recovery page, verbatim in API, UserInfo and ID token', async () => {
      const group = await idp.api('/api/v3/core/groups/', { json: { name: GROUP } });
      expect(group.status).toBe(201);
      expect(group.body.name).toBe(GROUP);
      const email = `o'brien&co+${Date.now()}@example.com`;
      const created = await idp.api('/api/v3/core/users/', { json: { username: email, email, name: NAME, groups: [group.body.pk] } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: NAME, email });
      expect((await idp.api(`/api/v3/core/users/${created.body.pk}/`)).body.name).toBe(NAME);
      expect(
        (await idp.api(`/api/v3/core/groups/?search=${encodeURIComponent('<script>')}`)).body.results.map((g: { name: string }) => g.name),
      ).toEqual([GROUP]);
      expect((await idp.api(`/api/v3/core/users/${created.body.pk}/set_password/`, { json: { password: PASSWORD } })).status).toBe(204);

      const http = new RecordingClient();
      const request = await pkceRequest(wiki, idp.url, { login_hint: HINT });
      const page = await firstPage(http, request, CALLBACK);
      if (page instanceof URL) throw new Error('no e-mail page');
      const passwordPage = await submit(http, page, { email });
      expect(passwordPage.text).toContain(`<strong>o&#39;brien&amp;co+`);
      await submit(http, passwordPage, { password: 'wrong password' });
      const callback = await http.follow(await submit(http, passwordPage, { password: PASSWORD }), CALLBACK);
      expect(callback).toBeInstanceOf(URL);
      const pages = http.responses.filter((r) => r.headers.get('content-type')?.includes('text/html'));
      expect(pages.length).toBeGreaterThanOrEqual(3);
      pages.forEach(expectNoRawMarkup);

      const recovery = await idp.api(`/api/v3/core/users/${created.body.pk}/recovery/`, { method: 'POST' });
      expect(recovery.status).toBe(200);
      const recoveryPage = await new CookieClient().request(recovery.body.link);
      expect(recoveryPage.status).toBe(200);
      expect(recoveryPage.text).toContain('o&#39;brien&amp;co+');
      expectNoRawMarkup(recoveryPage);

      const tokens = await redeem(idp.url, wiki, (callback as URL).searchParams.get('code')!, request.verifier);
      expect(jwtClaims(tokens.body.id_token)).toMatchObject({ name: NAME, email });
      expect((await userinfo(idp.url, tokens.body.access_token)).body).toMatchObject({ name: NAME, email });
    });

    test('error pages escape what the request carried (client_id, redirect_uri, state)', async () => {
      const unknown = await get(`/application/o/authorize/?client_id=${encodeURIComponent(HINT)}&state=${encodeURIComponent(HINT)}`);
      expect(unknown.status).toBe(400);
      expectNoRawMarkup(unknown);
      const request = await pkceRequest(wiki, idp.url, { redirect_uri: `https://evil.example/${HINT}`, state: HINT, login_hint: HINT });
      const refused = await get(request.url.pathname + request.url.search);
      expect(refused.status).toBe(400);
      expectNoRawMarkup(refused);
      const expired = await get(`/if/flow/wiki/${encodeURIComponent(HINT)}/`);
      expect(expired.status).toBe(400);
      expectNoRawMarkup(expired);
    });
  });
});
