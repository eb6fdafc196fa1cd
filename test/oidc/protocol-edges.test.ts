/**
 * Protocol edges real clients run into: the authorization request by POST, endpoint paths with and without the
 * trailing slash, DPoP end to end (oauth4webapi), the session claims of every ID token, and openid being required.
 */
import * as oauth from 'oauth4webapi';
import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, pkceRequest, redeemCode, submit, type HttpSignIn } from '../helpers/http-client.js';

const CALLBACK = 'http://127.0.0.1:1/callback';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe.each(engines)('protocol edges (%s)', (engine) => {
  let idp: OidcTestServer;

  beforeAll(async () => {
    idp = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki' }, { slug: 'crm' }]);
  });
  afterAll(async () => idp?.close());

  async function signedIn(slug = 'wiki'): Promise<HttpSignIn & { user: { uuid: string; email: string } }> {
    const user = await idp.user();
    return { ...(await httpSignIn(new CookieClient(), idp.apps[slug]!, idp.url, user.email, PASSWORD)), user };
  }

  test.each(['wiki', 'crm'])('the authorization request by POST (form-encoded) follows the same rules as GET (%s)', async (slug) => {
    const app = idp.apps[slug]!;
    const user = await idp.user();
    const request = await pkceRequest(app, idp.url);
    const http = new CookieClient();
    const posted = await http.request(`${idp.url}/application/o/authorize/`, { form: Object.fromEntries(request.url.searchParams) });
    const emailPage = await http.follow(posted, app.redirect_uri);
    if (emailPage instanceof URL) throw new Error('expected the sign-in page');
    const done = await http.follow(
      await submit(http, await submit(http, emailPage, { email: user.email }), { password: PASSWORD }),
      app.redirect_uri,
    );
    if (!(done instanceof URL)) throw new Error(`expected the callback, got ${done.status}`);
    expect(done.searchParams.get('state')).toBe(request.state);
    expect((await redeemCode(app, idp.url, { request, callback: done })).status).toBe(200);

    // POST answers with the same request by GET (so the SameSite=Lax session cookie comes along); an unregistered
    // redirect_uri then is the same 400 page as by GET, never a redirect to it.
    const bad = await http.request(`${idp.url}/application/o/authorize/`, {
      form: { ...Object.fromEntries(request.url.searchParams), redirect_uri: 'https://evil.example/cb' },
    });
    expect(bad.status).toBe(303);
    expect(new URL(bad.headers.get('location')!).origin).toBe(idp.url);
    const page = await http.follow(bad, 'https://evil.example');
    if (page instanceof URL) throw new Error(`redirected to ${page.href}`);
    expect(page.status).toBe(400);
  });

  test('every endpoint answers with and without its trailing slash, without a redirect', async () => {
    const { issuer } = idp.apps.wiki!;
    for (const url of [
      `${issuer}.well-known/openid-configuration`,
      `${issuer}.well-known/openid-configuration/`,
      `${issuer}jwks/`,
      `${issuer}jwks`,
    ]) {
      const response = await fetch(url, { redirect: 'manual' });
      expect({ url, status: response.status }).toEqual({ url, status: 200 });
    }
    for (const path of ['/application/o/userinfo/', '/application/o/userinfo']) {
      const response = await fetch(`${idp.url}${path}`, { redirect: 'manual' });
      expect({ path, status: response.status }).toEqual({ path, status: 401 });
    }
    for (const path of ['/application/o/token/', '/application/o/token', '/application/o/introspect', '/application/o/revoke']) {
      const response = await fetch(`${idp.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&token=x',
      });
      expect({ path, status: response.status, json: response.headers.get('content-type')?.startsWith('application/json') }).toEqual({
        path,
        status: 401,
        json: true,
      });
    }
    const flow = await signedIn();
    const { url } = await pkceRequest(idp.apps.wiki!, idp.url);
    expect((await fetch(url.href.replace('/authorize/?', '/authorize?'), { redirect: 'manual' })).status).toBe(303);
    const tokens = await fetch(`${idp.url}/application/o/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: flow.callback.searchParams.get('code')!,
        redirect_uri: CALLBACK,
        client_id: 'client-wiki',
        client_secret: idp.apps.wiki!.client_secret,
        code_verifier: flow.request.verifier,
      }),
    });
    expect(tokens.status).toBe(200);
  });

  test('every ID token says when, how and in which session: auth_time, amr ["pwd"], sid', async () => {
    const flow = await signedIn();
    const tokens = await redeemCode(idp.apps.wiki!, idp.url, flow);
    const claims = decodeJwt(tokens.body.id_token);
    expect(claims).toMatchObject({ sub: flow.user.uuid, amr: ['pwd'], auth_time: expect.any(Number), sid: expect.any(String) });
    expect(Math.abs((claims.auth_time as number) - Date.now() / 1000)).toBeLessThan(60);
    // A refresh keeps them.
    const refreshed = await fetch(`${idp.url}/application/o/token/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.body.refresh_token,
        client_id: 'client-wiki',
        client_secret: idp.apps.wiki!.client_secret,
      }),
    });
    expect(decodeJwt((await refreshed.json()).id_token)).toMatchObject({ amr: ['pwd'], auth_time: claims.auth_time, sid: claims.sid });
  });

  test.each<Record<string, string>>([{}, { nonce: 'n-1' }, { max_age: '60' }, { nonce: 'n', prompt: 'login' }])(
    'a request without openid is invalid_scope at the redirect URI, whatever it carries (%o)',
    async (extra) => {
      const { url } = await pkceRequest(idp.apps.wiki!, idp.url, { scope: 'profile email', ...extra });
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get('location')!);
      expect(location.href.startsWith(CALLBACK)).toBe(true);
      expect(location.searchParams.get('error')).toBe('invalid_scope');
      expect(location.searchParams.get('state')).toBe(url.searchParams.get('state'));
    },
  );

  describe('DPoP (RFC 9449) end to end, oauth4webapi', () => {
    test('a DPoP-bound token: the shared UserInfo takes it with a proof, not as Bearer; introspection says DPoP and cnf.jkt', async () => {
      const app = idp.apps.wiki!;
      const as = await oauth.processDiscoveryResponse(new URL(app.issuer), await oauth.discoveryRequest(new URL(app.issuer), insecure));
      expect(as.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
      const client: oauth.Client = { client_id: app.client_id };
      const keys = await oauth.generateKeyPair('ES256');
      const dpop = oauth.DPoP(client, keys);

      const flow = await signedIn();
      const params = oauth.validateAuthResponse(as, client, flow.callback, flow.request.state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretPost(app.client_secret),
        params,
        CALLBACK,
        flow.request.verifier,
        { DPoP: dpop, ...insecure },
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: flow.request.nonce });
      expect(tokens.token_type).toBe('dpop');

      const userinfo = await oauth.userInfoRequest(as, client, tokens.access_token, { DPoP: dpop, ...insecure });
      expect(userinfo.status).toBe(200);
      expect(await oauth.processUserInfoResponse(as, client, flow.user.uuid, userinfo)).toMatchObject({ sub: flow.user.uuid });

      // Without the proof the token is useless (a stolen DPoP token cannot be replayed as Bearer).
      expect(
        (await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status,
      ).toBe(401);

      const introspected = await fetch(`${idp.url}/application/o/introspect/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.access_token, client_id: app.client_id, client_secret: app.client_secret }),
      });
      const jkt = await calculateJwkThumbprint(await exportJWK(keys.publicKey));
      expect(await introspected.json()).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
    });
  });
});
