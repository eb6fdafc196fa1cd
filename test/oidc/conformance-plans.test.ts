/**
 * Modelled on the OpenID Foundation's conformance plans (Basic OP, Config OP, RP-Initiated Logout OP, Back-Channel
 * Logout OP): one test per module, named by the module, each with PKCE added since ours is mandatory. The browser
 * is an HTTP client keeping cookies; every token is checked as a certified RP would (signature, iss, aud, nonce).
 */
import * as jose from 'jose';
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import {
  CookieClient,
  formOf,
  httpSignIn,
  pkceRequest,
  redeemCode,
  submit,
  type HttpResponse,
  type HttpSignIn,
} from '../helpers/http-client.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { logoutTokenOf } from '../helpers/logout-token.js';

const CALLBACK = 'http://127.0.0.1:1/callback';
const LOGGED_OUT = 'http://127.0.0.1:1/logged-out';

describe.each(engines)('conformance plans (%s)', (engine) => {
  let idp: OidcTestServer;
  let backchannel: Receiver;

  beforeAll(async () => {
    backchannel = await startReceiver();
    idp = await startOidcServer(
      engine,
      CALLBACK,
      [{ slug: 'wiki', post_logout_redirect_uris: [LOGGED_OUT], backchannel_logout_uri: `${backchannel.url}/bc` }],
      { overrides: { webhooks: { allow_insecure_loopback: true } }, workers: true },
    );
  });
  afterAll(async () => {
    await idp?.close();
    await backchannel?.close();
  });

  const app = () => idp.apps.wiki!;
  const form = (values: Record<string, string>) => ({
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(values),
  });
  const secretPost = () => ({ client_id: app().client_id, client_secret: app().client_secret });

  /** Verifies an ID token as a certified RP: RS256 over the issuer's JWKS, iss, aud, nonce, iat and exp. */
  async function verifyIdToken(token: string, nonce?: string) {
    const jwks = jose.createRemoteJWKSet(new URL(`${app().issuer}jwks/`));
    const { payload, protectedHeader } = await jose.jwtVerify(token, jwks, {
      issuer: app().issuer,
      audience: app().client_id,
      algorithms: ['RS256'],
    });
    expect(protectedHeader.alg).toBe('RS256');
    if (nonce !== undefined) expect(payload.nonce).toBe(nonce);
    expect(payload.exp! > payload.iat!).toBe(true);
    return payload;
  }

  async function signedIn(user?: { email: string }) {
    const who = user ?? (await idp.user());
    const http = new CookieClient();
    const flow = await httpSignIn(http, app(), idp.url, who.email, PASSWORD);
    const tokens = await redeemCode(app(), idp.url, flow);
    expect(tokens.status).toBe(200);
    return { http, flow, tokens: tokens.body as { access_token: string; refresh_token: string; id_token: string }, user: who };
  }

  /** An authorization request in the signed-in browser; where it lands: the callback (URL) or a page. */
  async function authorize(
    http: CookieClient,
    extra: Record<string, string> = {},
  ): Promise<{ request: Awaited<ReturnType<typeof pkceRequest>>; landed: URL | HttpResponse }> {
    const request = await pkceRequest(app(), idp.url, extra);
    return { request, landed: await http.follow(await http.request(request.url.href), CALLBACK) };
  }

  const userinfo = (token: string, init: RequestInit = {}) =>
    fetch(`${idp.url}/application/o/userinfo/`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), ...(init.body ? {} : { Authorization: `Bearer ${token}` }) },
    });

  describe('Basic OP', () => {
    test('oidcc-server: code flow, a valid ID token, UserInfo for the same subject', async () => {
      const { flow, tokens, user } = await signedIn();
      const claims = await verifyIdToken(tokens.id_token, flow.request.nonce);
      const info = await (await userinfo(tokens.access_token)).json();
      expect(info.sub).toBe(claims.sub);
      expect(claims).toMatchObject({ email: user.email });
    });

    test.each([
      ['oidcc-userinfo-get', (token: string) => ({ method: 'GET', headers: { Authorization: `Bearer ${token}` } })],
      ['oidcc-userinfo-post-header', (token: string) => ({ method: 'POST', headers: { Authorization: `Bearer ${token}` } })],
      ['oidcc-userinfo-post-body', (token: string) => form({ access_token: token })],
    ])('%s', async (_module, init) => {
      const { tokens, user } = await signedIn();
      const response = await fetch(`${idp.url}/application/o/userinfo/`, init(tokens.access_token));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ email: user.email });
    });

    test.each([
      ['oidcc-scope-profile', 'openid profile', ['name', 'given_name', 'family_name', 'picture'], ['email']],
      ['oidcc-scope-email', 'openid email', ['email', 'email_verified'], ['name']],
      ['oidcc-scope-all', 'openid profile email', ['name', 'given_name', 'family_name', 'picture', 'email', 'email_verified'], []],
    ])('%s', async (_module, scope, present, absent) => {
      const user = await idp.user();
      const http = new CookieClient();
      const request = await pkceRequest(app(), idp.url, { scope });
      const emailPage = await http.follow(await http.request(request.url.href), CALLBACK);
      if (emailPage instanceof URL) throw new Error('expected the sign-in page');
      const callback = await http.follow(
        await submit(http, await submit(http, emailPage, { email: user.email }), { password: PASSWORD }),
        CALLBACK,
      );
      if (!(callback instanceof URL)) throw new Error('expected the callback');
      const tokens = (await redeemCode(app(), idp.url, { request, callback })).body;
      const info = await (await userinfo(tokens.access_token)).json();
      for (const claim of present) expect(info).toHaveProperty(claim);
      for (const claim of absent) expect(info).not.toHaveProperty(claim);
      expect(tokens.scope.split(' ').sort()).toEqual(scope.split(' ').sort());
    });

    test('oidcc-prompt-login: a signed-in user is asked to sign in again; auth_time moves', async () => {
      const { http, tokens } = await signedIn();
      const before = (await verifyIdToken(tokens.id_token)).auth_time as number;
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const { landed } = await authorize(http, { prompt: 'login' });
      expect(landed).not.toBeInstanceOf(URL);
      expect((landed as HttpResponse).text).toContain('name="email"');
      const user = await idp.user();
      const again = await signedIn(user);
      expect((await verifyIdToken(again.tokens.id_token)).auth_time as number).toBeGreaterThan(before);
    });

    test('oidcc-prompt-none-not-logged-in: login_required at the redirect URI, with the state', async () => {
      const { request, landed } = await authorize(new CookieClient(), { prompt: 'none' });
      expect(landed).toBeInstanceOf(URL);
      expect((landed as URL).searchParams.get('error')).toBe('login_required');
      expect((landed as URL).searchParams.get('state')).toBe(request.state);
    });

    test('oidcc-prompt-none-logged-in: a code without any page', async () => {
      const { http, user } = await signedIn();
      const { request, landed } = await authorize(http, { prompt: 'none' });
      expect(landed).toBeInstanceOf(URL);
      const tokens = (await redeemCode(app(), idp.url, { request, callback: landed as URL })).body;
      expect((await verifyIdToken(tokens.id_token, request.nonce)).email).toBe(user.email);
    });

    test('oidcc-max-age-1: after more than a second the user signs in again', async () => {
      const { http } = await signedIn();
      // auth_time counts whole seconds: past 2 s, it is surely more than 1 s ago.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const { landed } = await authorize(http, { max_age: '1' });
      expect(landed).not.toBeInstanceOf(URL);
      expect((landed as HttpResponse).text).toContain('name="email"');
    });

    test('oidcc-max-age-10000: single sign-on, and the ID token carries auth_time', async () => {
      const { http, tokens } = await signedIn();
      const { request, landed } = await authorize(http, { max_age: '10000' });
      expect(landed).toBeInstanceOf(URL);
      const second = (await redeemCode(app(), idp.url, { request, callback: landed as URL })).body;
      const claims = await verifyIdToken(second.id_token, request.nonce);
      expect(claims.auth_time).toBe((await verifyIdToken(tokens.id_token)).auth_time);
    });

    test("oidcc-id-token-hint: prompt=none with the current user's ID token gives a code for the same subject", async () => {
      const { http, tokens } = await signedIn();
      const { request, landed } = await authorize(http, { prompt: 'none', id_token_hint: tokens.id_token });
      expect(landed).toBeInstanceOf(URL);
      const second = (await redeemCode(app(), idp.url, { request, callback: landed as URL })).body;
      expect((await verifyIdToken(second.id_token)).sub).toBe((await verifyIdToken(tokens.id_token)).sub);
    });

    test('oidcc-codereuse: a code redeemed twice is invalid_grant the second time', async () => {
      const user = await idp.user();
      const flow = await httpSignIn(new CookieClient(), app(), idp.url, user.email, PASSWORD);
      expect((await redeemCode(app(), idp.url, flow)).status).toBe(200);
      const again = await redeemCode(app(), idp.url, flow);
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
    });

    test('oidcc-codereuse-30seconds: reused after 30 s, refused, and the tokens of the first use are revoked', async () => {
      const user = await idp.user();
      const flow: HttpSignIn = await httpSignIn(new CookieClient(), app(), idp.url, user.email, PASSWORD);
      const first = await redeemCode(app(), idp.url, flow);
      expect((await userinfo(first.body.access_token)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 30_000));
      expect((await redeemCode(app(), idp.url, flow)).body.error).toBe('invalid_grant');
      expect((await userinfo(first.body.access_token)).status).toBe(401);
    }, 60_000);

    test('oidcc-ensure-registered-redirect-uri: an unregistered redirect_uri is an error page, never a redirect', async () => {
      const { url } = await pkceRequest({ ...app(), redirect_uri: 'https://evil.example/cb' }, idp.url);
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    });

    test('oidcc-ensure-post-request-succeeds: the authorization request by POST signs in', async () => {
      const { http, user } = await signedIn();
      const request = await pkceRequest(app(), idp.url);
      const landed = await http.follow(
        await http.request(`${idp.url}/application/o/authorize/`, { form: Object.fromEntries(request.url.searchParams) }),
        CALLBACK,
      );
      expect(landed).toBeInstanceOf(URL);
      const tokens = (await redeemCode(app(), idp.url, { request, callback: landed as URL })).body;
      expect((await verifyIdToken(tokens.id_token, request.nonce)).email).toBe(user.email);
    });

    test('oidcc-server-client-secret-post: the token request with client_secret_post', async () => {
      const user = await idp.user();
      const flow = await httpSignIn(new CookieClient(), app(), idp.url, user.email, PASSWORD);
      const response = await fetch(
        `${idp.url}/application/o/token/`,
        form({
          grant_type: 'authorization_code',
          code: flow.callback.searchParams.get('code')!,
          redirect_uri: CALLBACK,
          code_verifier: flow.request.verifier,
          ...secretPost(),
        }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toContain('no-store');
      const tokens = await response.json();
      expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number) });
      await verifyIdToken(tokens.id_token, flow.request.nonce);
    });

    test('oidcc-refresh-token: a new ID token for the same subject; the old refresh token is spent', async () => {
      const { tokens } = await signedIn();
      const refreshed = await (
        await fetch(
          `${idp.url}/application/o/token/`,
          form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...secretPost() }),
        )
      ).json();
      expect((await verifyIdToken(refreshed.id_token)).sub).toBe((await verifyIdToken(tokens.id_token)).sub);
      const reused = await fetch(
        `${idp.url}/application/o/token/`,
        form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...secretPost() }),
      );
      expect((await reused.json()).error).toBe('invalid_grant');
    });
  });

  describe('Config OP', () => {
    test('oidcc-discovery-endpoint-verification', async () => {
      const response = await fetch(`${app().issuer}.well-known/openid-configuration`);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const discovery = await response.json();
      expect(discovery.issuer).toBe(app().issuer);
      for (const key of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri', 'end_session_endpoint']) {
        expect(discovery[key]).toMatch(new RegExp(`^${idp.url}/`));
      }
      expect(discovery).toMatchObject({
        response_types_supported: ['code'],
        subject_types_supported: expect.arrayContaining(['public']),
        id_token_signing_alg_values_supported: expect.arrayContaining(['RS256']),
        code_challenge_methods_supported: ['S256'],
        scopes_supported: expect.arrayContaining(['openid', 'profile', 'email']),
        claims_supported: expect.arrayContaining(['sub', 'email', 'name']),
      });
      const jwks = await (await fetch(discovery.jwks_uri)).json();
      expect(jwks.keys.every((key: { kty: string; d?: string }) => key.kty === 'RSA' && key.d === undefined)).toBe(true);
    });
  });

  describe('RP-Initiated Logout OP and Back-Channel Logout OP', () => {
    const endSession = (params: Record<string, string>) => `${app().issuer}end-session/?${new URLSearchParams(params)}`;
    /** A browser navigation asks for HTML (errors are pages then). */
    const navigate = (http: CookieClient, url: string) => http.request(url, { headers: { Accept: 'text/html' } });

    /** Follows the sign-out page's own form, as its script does; returns where the browser lands. */
    async function signOut(http: CookieClient, params: Record<string, string>): Promise<URL | HttpResponse> {
      const page = await navigate(http, endSession(params));
      if (page.status !== 200 || !page.text.includes('id="op.logoutForm"')) return page;
      return http.follow(await submit(http, page, {}), LOGGED_OUT);
    }
    async function stillSignedIn(http: CookieClient): Promise<boolean> {
      const { landed } = await authorize(http, { prompt: 'none' });
      return landed instanceof URL && landed.searchParams.has('code');
    }

    test('rp-initiated-logout: redirected with the state; the session is over; a backchannel logout token names the session (sid)', async () => {
      const { http, tokens } = await signedIn();
      backchannel.received.length = 0;
      const landed = await signOut(http, { id_token_hint: tokens.id_token, post_logout_redirect_uri: LOGGED_OUT, state: 'st' });
      expect(landed).toBeInstanceOf(URL);
      expect((landed as URL).origin + (landed as URL).pathname).toBe(LOGGED_OUT);
      expect((landed as URL).searchParams.get('state')).toBe('st');
      expect(await stillSignedIn(http)).toBe(false);

      const [hit] = await backchannel.waitFor(1);
      const jwks = jose.createRemoteJWKSet(new URL(`${app().issuer}jwks/`));
      const { payload } = await jose.jwtVerify(logoutTokenOf(hit!), jwks, {
        issuer: app().issuer,
        audience: app().client_id,
        typ: 'logout+jwt',
      });
      expect(payload.sub).toBe((await verifyIdToken(tokens.id_token)).sub);
      expect(payload.sid).toBe((await verifyIdToken(tokens.id_token)).sid);
    });

    test.each<[string, (idToken: string) => Record<string, string>]>([
      ['rp-initiated-logout-bad-id-token-hint', () => ({ id_token_hint: 'not-a-jwt', post_logout_redirect_uri: LOGGED_OUT })],
      [
        'rp-initiated-logout-modified-id-token-hint',
        (idToken) => ({ id_token_hint: `${idToken.slice(0, -6)}AAAAAA`, post_logout_redirect_uri: LOGGED_OUT }),
      ],
      [
        'rp-initiated-logout-bad-post-logout-redirect-uri',
        (idToken) => ({ id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example/' }),
      ],
      [
        'rp-initiated-logout-query-added-to-post-logout-redirect-uri',
        (idToken) => ({ id_token_hint: idToken, post_logout_redirect_uri: `${LOGGED_OUT}?x=1` }),
      ],
    ])('%s: an error page, no redirect, still signed in', async (_module, params) => {
      const { http, tokens } = await signedIn();
      const answer = await navigate(http, endSession(params(tokens.id_token)));
      expect(answer.status).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(answer.text).toContain('This sign-out request cannot be completed');
      expect(await stillSignedIn(http)).toBe(true);
    });

    test('rp-initiated-logout-no-id-token-hint: the user is asked first; without a hint the RP is unknown, so no redirect', async () => {
      const { http } = await signedIn();
      const page = await navigate(http, endSession({ post_logout_redirect_uri: LOGGED_OUT, state: 's' }));
      expect(page.status).toBe(200);
      expect(page.text).toContain('Sign out of all applications?');
      expect(await stillSignedIn(http)).toBe(true);
      const confirmed = await http.follow(
        await http.request(formOf(page).action, { form: { ...formOf(page).fields, logout: 'yes' } }),
        LOGGED_OUT,
      );
      expect(confirmed).not.toBeInstanceOf(URL);
      expect((confirmed as HttpResponse).text).toContain('You are signed out');
      expect(await stillSignedIn(http)).toBe(false);
    });

    test.each<[string, (idToken: string) => Record<string, string>]>([
      ['rp-initiated-logout-no-post-logout-redirect-uri', (idToken) => ({ id_token_hint: idToken })],
      ['rp-initiated-logout-only-state', (idToken) => ({ id_token_hint: idToken, state: 'only' })],
    ])('%s: the service\'s own "signed out" page, no redirect', async (_module, params) => {
      const { http, tokens } = await signedIn();
      const landed = await signOut(http, params(tokens.id_token));
      expect(landed).not.toBeInstanceOf(URL);
      expect((landed as HttpResponse).status).toBe(200);
      expect((landed as HttpResponse).text).toContain('You are signed out');
      expect(await stillSignedIn(http)).toBe(false);
    });

    test('rp-initiated-logout-no-state: redirected without a state parameter', async () => {
      const { http, tokens } = await signedIn();
      const landed = await signOut(http, { id_token_hint: tokens.id_token, post_logout_redirect_uri: LOGGED_OUT });
      expect(landed).toBeInstanceOf(URL);
      expect((landed as URL).searchParams.has('state')).toBe(false);
    });
  });
});
