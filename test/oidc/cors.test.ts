/**
 * CORS for browser apps: each application's allowed origins (default: its redirect URIs' origins) may read the
 * token, UserInfo, JWKS, discovery, introspection and revocation answers; no other origin, never `*`; the
 * sign-in pages send no CORS headers at all.
 */
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, pkceRequest } from '../helpers/http-client.js';

const SPA = 'http://localhost:5173';
const OTHER_SPA = 'http://localhost:4200';
const ADMIN = 'https://admin.example.com';

describe.each(engines)('CORS (%s)', (engine) => {
  let idp: OidcTestServer;

  beforeAll(async () => {
    idp = await startOidcServer(engine, 'http://127.0.0.1:1/callback', [
      { slug: 'wiki' },
      { slug: 'spa', client_type: 'public', redirect_uris: [`${SPA}/callback`] },
      { slug: 'dash', client_type: 'public', redirect_uris: [`${OTHER_SPA}/callback`], allowed_origins: [OTHER_SPA, ADMIN] },
    ]);
  });
  afterAll(async () => idp?.close());

  const preflight = (path: string, origin: string, method = 'POST') =>
    fetch(`${idp.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': method,
        'Access-Control-Request-Headers': 'authorization, content-type, dpop',
      },
    });

  async function spaTokens() {
    const user = await idp.user();
    const signedIn = await httpSignIn(new CookieClient(), idp.apps.spa!, idp.url, user.email, PASSWORD);
    const response = await fetch(`${idp.url}/application/o/token/`, {
      method: 'POST',
      headers: { Origin: SPA, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: signedIn.callback.searchParams.get('code')!,
        redirect_uri: idp.apps.spa!.redirect_uri,
        client_id: 'client-spa',
        code_verifier: signedIn.request.verifier,
      }),
    });
    return { response, body: await response.json() };
  }

  test.each(['token', 'userinfo', 'introspect', 'revoke'])(
    'preflight to the shared %s endpoint: 204, granted to an allowed origin only',
    async (endpoint) => {
      const allowed = await preflight(`/application/o/${endpoint}/`, SPA);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(SPA);
      expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
      expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();

      const evil = await preflight(`/application/o/${endpoint}/`, 'https://evil.example');
      expect(evil.status).toBe(204);
      expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    },
  );

  test("discovery and JWKS: each application's own origins only", async () => {
    for (const path of ['.well-known/openid-configuration', 'jwks/']) {
      const spaDoc = await fetch(`${idp.apps.spa!.issuer}${path}`, { headers: { Origin: SPA } });
      expect(spaDoc.status).toBe(200);
      expect(spaDoc.headers.get('access-control-allow-origin')).toBe(SPA);
      // The same origin at another application's documents: not granted.
      expect(
        (await fetch(`${idp.apps.dash!.issuer}${path}`, { headers: { Origin: SPA } })).headers.get('access-control-allow-origin'),
      ).toBeNull();
      expect(
        (await fetch(`${idp.apps.wiki!.issuer}${path}`, { headers: { Origin: SPA } })).headers.get('access-control-allow-origin'),
      ).toBeNull();
      const pre = await preflight(`/application/o/spa/${path}`, SPA, 'GET');
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(SPA);
    }
  });

  test('configured allowed_origins replace the default: both listed origins, not others', async () => {
    for (const origin of [OTHER_SPA, ADMIN]) {
      const doc = await fetch(`${idp.apps.dash!.issuer}.well-known/openid-configuration`, { headers: { Origin: origin } });
      expect(doc.headers.get('access-control-allow-origin')).toBe(origin);
    }
    const doc = await fetch(`${idp.apps.dash!.issuer}.well-known/openid-configuration`, { headers: { Origin: SPA } });
    expect(doc.headers.get('access-control-allow-origin')).toBeNull();
  });

  test("a token answer is readable by the app's origin; the same request from another origin gets no grant", async () => {
    const { response, body } = await spaTokens();
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();

    const userinfo = await fetch(`${idp.url}/application/o/userinfo/`, {
      headers: { Origin: SPA, Authorization: `Bearer ${body.access_token}` },
    });
    expect(userinfo.status).toBe(200);
    expect(userinfo.headers.get('access-control-allow-origin')).toBe(SPA);
    const elsewhere = await fetch(`${idp.url}/application/o/userinfo/`, {
      headers: { Origin: OTHER_SPA, Authorization: `Bearer ${body.access_token}` },
    });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();

    const refreshed = await fetch(`${idp.url}/application/o/token/`, {
      method: 'POST',
      headers: { Origin: OTHER_SPA, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: 'client-spa' }),
    });
    expect(refreshed.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('the sign-in pages and the authorization endpoint send no CORS headers', async () => {
    const http = new CookieClient();
    const { url } = await pkceRequest(idp.apps.spa!, idp.url);
    const authorize = await http.request(url.href, { headers: { Origin: SPA } });
    expect(authorize.headers.get('access-control-allow-origin')).toBeNull();
    const page = await http.follow(authorize);
    if (page instanceof URL) throw new Error('expected the sign-in page');
    expect(page.status).toBe(200);
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await preflight('/application/o/authorize/', SPA, 'GET');
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });
});
