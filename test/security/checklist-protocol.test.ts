/**
 * Security checklist, protocol part: redirect_uri is matched exactly (at the authorization and the token
 * endpoint), codes and refresh tokens only work for the client they were issued to, a replayed code revokes
 * what the first redemption issued (RFC 6749 §4.1.2), and state and nonce come back unchanged.
 */
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { CookieClient, pkceRequest, type PkceRequest } from '../helpers/http-client.js';
import { firstPage, jwtClaims, redeem, refresh, signInWith, userinfo } from '../helpers/checklist.js';

const REGISTERED = 'http://127.0.0.1:8123/callback';
const SECOND = 'http://127.0.0.1:8123/second';
const CRM_CALLBACK = 'http://127.0.0.1:8124/callback';

describe.each(engines)('security checklist: protocol (%s)', (engine) => {
  let idp: OidcTestServer;
  let wiki: TestApp;
  let crm: TestApp;

  beforeAll(async () => {
    idp = await startOidcServer(engine, REGISTERED, [
      { slug: 'wiki', redirect_uris: [REGISTERED, SECOND] },
      { slug: 'crm', redirect_uris: [CRM_CALLBACK] },
      { slug: 'staff', access_group: 'staff-only' },
    ]);
    wiki = idp.apps.wiki!;
    crm = idp.apps.crm!;
  });
  afterAll(async () => idp?.close());

  /** A signed-in user's code for `app` (redirect_uri `redirectUri`), with the request that produced it. */
  async function codeFor(
    app: TestApp,
    options: { email?: string; redirectUri?: string; http?: CookieClient; extra?: Record<string, string> } = {},
  ) {
    const email = options.email ?? (await idp.user()).email;
    const redirectUri = options.redirectUri ?? app.redirect_uri;
    const request = await pkceRequest(app, idp.url, { redirect_uri: redirectUri, ...options.extra });
    const callback = await signInWith(options.http ?? new CookieClient(), request, redirectUri, email, PASSWORD);
    expect(callback.href.startsWith(`${redirectUri}?`)).toBe(true);
    return { request, callback, code: callback.searchParams.get('code')!, email };
  }

  async function authorizeWith(redirectUri: string) {
    const request = await pkceRequest(wiki, idp.url, { redirect_uri: redirectUri });
    const response = await fetch(request.url, { redirect: 'manual' });
    return {
      status: response.status,
      location: response.headers.get('location'),
      type: response.headers.get('content-type'),
      body: await response.text(),
    };
  }

  describe('redirect_uri exact match', () => {
    test('the registered redirect_uri itself is accepted (the control for the variants below)', async () => {
      const answer = await authorizeWith(REGISTERED);
      expect(answer.status).toBe(303);
      expect(new URL(answer.location!, idp.url).pathname).toMatch(/^\/if\/flow\/wiki\/[^/]+\/$/);
    });

    test.each([
      ['a prefix', 'http://127.0.0.1:8123/callbac'],
      ['an extended path', `${REGISTERED}/extra`],
      ['a trailing slash', `${REGISTERED}/`],
      ['another path case', 'http://127.0.0.1:8123/Callback'],
      ['an upper-case scheme', 'HTTP://127.0.0.1:8123/callback'],
      ['an added query', `${REGISTERED}?x=1`],
      ['an empty query', `${REGISTERED}?`],
      ['a fragment', `${REGISTERED}#f`],
      ['userinfo', 'http://user@127.0.0.1:8123/callback'],
      ['userinfo pointing elsewhere', 'http://127.0.0.1:8123@evil.example/callback'],
      ['a percent-encoded letter', 'http://127.0.0.1:8123/%63allback'],
      ['an encoded slash and dot-dot', `${REGISTERED}%2F..`],
      ['a dot-dot segment', 'http://127.0.0.1:8123/x/../callback'],
      ['a trailing encoded space', `${REGISTERED}%20`],
      ['another port', 'http://127.0.0.1:8125/callback'],
      ['no port', 'http://127.0.0.1/callback'],
      ['localhost for 127.0.0.1', 'http://localhost:8123/callback'],
      ['https for http', 'https://127.0.0.1:8123/callback'],
      ["another application's redirect_uri", CRM_CALLBACK],
    ])('%s is refused with a readable 400 page, never a redirect', async (_variant, redirectUri) => {
      const answer = await authorizeWith(redirectUri);
      expect(answer.status).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.type).toContain('text/html');
      expect(answer.body).toContain('redirect_uri');
      expect(answer.body).not.toContain('<script');
    });

    test('token endpoint: a code issued for one registered redirect_uri is refused with the other one', async () => {
      const issued = await codeFor(wiki, { redirectUri: SECOND });
      const answer = await redeem(idp.url, wiki, issued.code, issued.request.verifier, REGISTERED);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_grant');
      expect(answer.body.access_token).toBeUndefined();
    });

    test.each([`${REGISTERED}/`, `${REGISTERED}?x=1`, 'http://localhost:8123/callback', 'HTTP://127.0.0.1:8123/callback'])(
      'token endpoint: redirect_uri %s instead of the one the code was issued for is invalid_grant',
      async (variant) => {
        const issued = await codeFor(wiki);
        const answer = await redeem(idp.url, wiki, issued.code, issued.request.verifier, variant);
        expect(answer.status).toBe(400);
        expect(answer.body.error).toBe('invalid_grant');
        expect(answer.body.access_token).toBeUndefined();
      },
    );
  });

  describe('codes and tokens belong to their client', () => {
    test("a code issued to wiki, redeemed with crm's credentials, is invalid_grant (with either redirect_uri)", async () => {
      const issued = await codeFor(wiki);
      for (const redirectUri of [REGISTERED, CRM_CALLBACK]) {
        const answer = await redeem(idp.url, crm, issued.code, issued.request.verifier, redirectUri);
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
      }
    });

    test("wiki's refresh token with crm's credentials is invalid_grant", async () => {
      const issued = await codeFor(wiki);
      const tokens = await redeem(idp.url, wiki, issued.code, issued.request.verifier);
      expect(tokens.status).toBe(200);
      const answer = await refresh(idp.url, crm, tokens.body.refresh_token);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    });

    test("UserInfo answers each access token for its own user; the ID token's aud is its own client", async () => {
      const [ada, bob] = [await idp.user(), await idp.user()];
      const issuedA = await codeFor(wiki, { email: ada.email });
      const issuedB = await codeFor(crm, { email: bob.email });
      const a = await redeem(idp.url, wiki, issuedA.code, issuedA.request.verifier);
      const b = await redeem(idp.url, crm, issuedB.code, issuedB.request.verifier);
      expect(jwtClaims(a.body.id_token)).toMatchObject({ sub: ada.uuid, aud: wiki.client_id });
      expect(jwtClaims(b.body.id_token)).toMatchObject({ sub: bob.uuid, aud: crm.client_id });
      const infoA = await userinfo(idp.url, a.body.access_token);
      expect(infoA.status).toBe(200);
      expect(infoA.body).toMatchObject({ sub: ada.uuid, email: ada.email });
      expect((await userinfo(idp.url, b.body.access_token)).body).toMatchObject({ sub: bob.uuid, email: bob.email });
    });

    test("only the shared UserInfo answers: the engine's per-application paths are not served, for any token", async () => {
      const issued = await codeFor(wiki);
      const tokens = await redeem(idp.url, wiki, issued.code, issued.request.verifier);
      expect((await userinfo(idp.url, tokens.body.access_token)).status).toBe(200);
      for (const path of ['/application/o/wiki/userinfo/', '/application/o/crm/userinfo/']) {
        const other = await fetch(`${idp.url}${path}`, { headers: { Authorization: `Bearer ${tokens.body.access_token}` } });
        expect(other.status).toBe(404);
        expect(await other.text()).not.toContain(wiki.client_id);
      }
    });
  });

  test('a code redeemed twice: the second is invalid_grant and the tokens of the first stop working', async () => {
    const issued = await codeFor(wiki);
    const first = await redeem(idp.url, wiki, issued.code, issued.request.verifier);
    expect(first.status).toBe(200);
    expect((await userinfo(idp.url, first.body.access_token)).status).toBe(200);

    const second = await redeem(idp.url, wiki, issued.code, issued.request.verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect(second.body.access_token).toBeUndefined();

    const refreshed = await refresh(idp.url, wiki, first.body.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    const info = await userinfo(idp.url, first.body.access_token);
    expect(info.status).toBe(401);
    expect(info.headers.get('www-authenticate')).toContain('invalid_token');
  });

  describe('state and nonce', () => {
    const STATE = "st \"<>&é+/=;%20 'x'";

    /** Sends the request to its first hop and returns where the browser is sent under `stopAt`. */
    async function landing(request: PkceRequest, stopAt: string, email?: string) {
      const http = new CookieClient();
      if (email) return signInWith(http, request, stopAt, email, PASSWORD);
      const landed = await firstPage(http, request, stopAt);
      if (!(landed instanceof URL)) throw new Error(`expected a redirect to ${stopAt}, got a ${landed.status} page`);
      return landed;
    }

    test('state comes back unchanged with the code, and the ID token carries the nonce', async () => {
      const user = await idp.user();
      const request = await pkceRequest(wiki, idp.url, { state: STATE });
      const callback = await landing(request, REGISTERED, user.email);
      expect(callback.searchParams.get('state')).toBe(STATE);
      const tokens = await redeem(idp.url, wiki, callback.searchParams.get('code')!, request.verifier);
      expect(jwtClaims(tokens.body.id_token).nonce).toBe(request.nonce);
    });

    test('without a nonce in the request, the ID token has none', async () => {
      const user = await idp.user();
      const request = await pkceRequest(wiki, idp.url);
      request.url.searchParams.delete('nonce');
      const callback = await landing(request, REGISTERED, user.email);
      const tokens = await redeem(idp.url, wiki, callback.searchParams.get('code')!, request.verifier);
      expect(tokens.status).toBe(200);
      expect(jwtClaims(tokens.body.id_token)).not.toHaveProperty('nonce');
    });

    test('access_denied (not in the access group) comes back with the state unchanged', async () => {
      const user = await idp.user();
      const staff = idp.apps.staff!;
      const callback = await landing(await pkceRequest(staff, idp.url, { state: STATE }), staff.redirect_uri, user.email);
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('state')).toBe(STATE);
      expect(callback.searchParams.get('code')).toBeNull();
    });

    test.each([
      ['invalid_scope', { scope: 'profile email' }, ['nonce']], // a nonce without openid would be invalid_request
      ['login_required', { prompt: 'none' }, []],
      ['invalid_request', { code_challenge_method: 'plain' }, []],
    ])('%s comes back with the state unchanged', async (error, extra, without) => {
      const request = await pkceRequest(wiki, idp.url, { state: STATE, ...extra });
      for (const name of without) request.url.searchParams.delete(name);
      const callback = await landing(request, REGISTERED);
      expect(callback.searchParams.get('error')).toBe(error);
      expect(callback.searchParams.get('state')).toBe(STATE);
    });
  });
});
