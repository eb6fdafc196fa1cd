/**
 * Relying parties written by others, as they call the service: oidc-client-ts and openid-client revoke tokens (RFC
 * 7009: 200 and an empty body without a content type), openid-client finds the metadata at the RFC 8414 §3.1
 * location, asks for offline_access, and a single-page app on a loopback address renews silently once declared web.
 */
import { OidcClient, InMemoryWebStorage, WebStorageStateStore } from 'oidc-client-ts';
import * as client from 'openid-client';
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { CookieClient, submit } from '../helpers/http-client.js';

const CALLBACK = 'http://127.0.0.1:1/callback';
// A single-page app served by its dev server on a loopback address, and a native app on the same kind of address.
const SPA_CALLBACK = 'http://127.0.0.1:5173/callback';
const NATIVE_CALLBACK = 'http://127.0.0.1:5174/callback';
const insecure = { execute: [client.allowInsecureRequests] };

describe.each(engines)('clients written by others (%s)', (engine) => {
  let idp: OidcTestServer;

  beforeAll(async () => {
    idp = await startOidcServer(engine, CALLBACK, [
      { slug: 'wiki' },
      // No refresh_token grant: no refresh tokens, so offline_access is not for it.
      { slug: 'reader', grant_types: ['authorization_code'] },
      { slug: 'spa', client_type: 'public', application_type: 'web', redirect_uris: [SPA_CALLBACK] },
      { slug: 'tool', client_type: 'public', redirect_uris: [NATIVE_CALLBACK] },
    ]);
  });
  afterAll(async () => idp?.close());

  const app = (slug: string): TestApp => idp.apps[slug]!;
  const configOf = (slug: string, options: client.DiscoveryRequestOptions = {}) => {
    const { issuer, client_id, client_secret } = app(slug);
    const auth = client_secret ? client.ClientSecretPost(client_secret) : client.None();
    return client.discovery(new URL(issuer), client_id, client_secret || undefined, auth, { ...insecure, ...options });
  };

  /** The person each browser signs in as. */
  const people = new WeakMap<CookieClient, string>();

  /** An authorization request by openid-client, followed by a browser that signs in when asked; where it lands. */
  async function authorize(config: client.Configuration, redirectUri: string, http: CookieClient, params: Record<string, string> = {}) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...params,
    });
    let landed = await http.follow(await http.request(url.href), redirectUri);
    if (!(landed instanceof URL)) {
      if (!people.has(http)) people.set(http, (await idp.user()).email);
      const email = people.get(http)!;
      landed = await http.follow(await submit(http, await submit(http, landed, { email }), { password: PASSWORD }), redirectUri);
    }
    if (!(landed instanceof URL)) throw new Error(`expected the callback, got ${landed.status} at ${landed.url}`);
    return {
      callback: landed,
      redeem: () => client.authorizationCodeGrant(config, landed, { pkceCodeVerifier: verifier, expectedState: state }),
    };
  }

  const refresh = (slug: string, refreshToken: string) =>
    fetch(`${idp.url}/application/o/token/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app(slug).client_id,
        ...(app(slug).client_secret ? { client_secret: app(slug).client_secret } : {}),
      }),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));

  describe('revocation (RFC 7009)', () => {
    test('the answer is 200 with an empty body and no content type', async () => {
      const tokens = await (await authorize(await configOf('wiki'), CALLBACK, new CookieClient())).redeem();
      const response = await fetch(`${idp.url}/application/o/revoke/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: tokens.refresh_token!,
          client_id: app('wiki').client_id,
          client_secret: app('wiki').client_secret,
        }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBeNull();
      expect(await response.text()).toBe('');
      expect((await refresh('wiki', tokens.refresh_token!)).body.error).toBe('invalid_grant');
    });

    test.each(['wiki', 'spa'])('oidc-client-ts revokes the refresh token of %s; the grant ends', async (slug) => {
      const redirectUri = slug === 'spa' ? SPA_CALLBACK : CALLBACK;
      const tokens = await (await authorize(await configOf(slug), redirectUri, new CookieClient())).redeem();
      const oidcClient = new OidcClient({
        authority: app(slug).issuer,
        client_id: app(slug).client_id,
        ...(app(slug).client_secret ? { client_secret: app(slug).client_secret } : {}),
        redirect_uri: redirectUri,
        stateStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
      });
      await expect(oidcClient.revokeToken(tokens.refresh_token!, 'refresh_token')).resolves.toBeUndefined();
      expect((await refresh(slug, tokens.refresh_token!)).body.error).toBe('invalid_grant');
    });

    test('openid-client revokes an access token; UserInfo refuses it after', async () => {
      const config = await configOf('wiki');
      const tokens = await (await authorize(config, CALLBACK, new CookieClient())).redeem();
      await expect(client.tokenRevocation(config, tokens.access_token)).resolves.toBeUndefined();
      const userinfo = await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
      expect(userinfo.status).toBe(401);
    });
  });

  describe('metadata at the RFC 8414 §3.1 location', () => {
    test("openid-client's oauth2 discovery (/.well-known/oauth-authorization-server/application/o/{slug}) finds the application", async () => {
      const config = await configOf('wiki', { algorithm: 'oauth2' });
      expect(config.serverMetadata()).toMatchObject({
        issuer: app('wiki').issuer,
        token_endpoint: `${idp.url}/application/o/token/`,
        revocation_endpoint: `${idp.url}/application/o/revoke/`,
      });
      // And the client works from it: a sign-in and a code exchange.
      const tokens = await (await authorize(config, CALLBACK, new CookieClient())).redeem();
      expect(tokens.claims()?.iss).toBe(app('wiki').issuer);
    });

    test("both inserted forms answer the issuer's own document, with or without the final slash, with the same caching and CORS", async () => {
      const own = await fetch(`${app('spa').issuer}.well-known/oauth-authorization-server`, {
        headers: { Origin: 'http://127.0.0.1:5173' },
      });
      const expected = await own.json();
      for (const document of ['oauth-authorization-server', 'openid-configuration']) {
        for (const slash of ['', '/']) {
          const response = await fetch(`${idp.url}/.well-known/${document}/application/o/spa${slash}`, {
            headers: { Origin: 'http://127.0.0.1:5173' },
          });
          expect(response.status).toBe(200);
          expect(await response.json()).toEqual(expected);
          expect(response.headers.get('cache-control')).toBe(own.headers.get('cache-control'));
          expect(response.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
        }
      }
      // Another origin is not granted; an unknown application or another path is not found.
      const other = await fetch(`${idp.url}/.well-known/oauth-authorization-server/application/o/spa`, {
        headers: { Origin: 'https://evil.example' },
      });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      for (const path of [
        '/.well-known/oauth-authorization-server/application/o/nope',
        '/.well-known/oauth-authorization-server/application/o/token',
        '/.well-known/oauth-authorization-server/other/o/spa',
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
      ]) {
        expect([path, (await fetch(`${idp.url}${path}`)).status]).toEqual([path, 404]);
      }
    });
  });

  describe('offline_access', () => {
    test('advertised by an application with refresh tokens, and granted when asked; the refresh token comes either way', async () => {
      const config = await configOf('wiki');
      expect(config.serverMetadata().scopes_supported).toContain('offline_access');

      const asked = await (await authorize(config, CALLBACK, new CookieClient(), { scope: 'openid email offline_access' })).redeem();
      expect(asked.scope!.split(' ').sort()).toEqual(['email', 'offline_access', 'openid']);
      expect(asked.refresh_token).toEqual(expect.any(String));
      const refreshed = await client.refreshTokenGrant(config, asked.refresh_token!);
      expect(refreshed.scope!.split(' ').sort()).toEqual(['email', 'offline_access', 'openid']);

      // The spec's rule (§2.3): every code grant brings a refresh token, asked or not.
      const notAsked = await (await authorize(config, CALLBACK, new CookieClient(), { scope: 'openid email' })).redeem();
      expect(notAsked.scope!.split(' ').sort()).toEqual(['email', 'openid']);
      expect(notAsked.refresh_token).toEqual(expect.any(String));
    });

    test.each(['consent', 'none'])(
      'with prompt=%s too (OIDC Core §11: the operator registered the application), and no page asks for consent',
      async (prompt) => {
        const config = await configOf('wiki');
        const http = new CookieClient();
        await (await authorize(config, CALLBACK, http)).redeem();
        const again = await authorize(config, CALLBACK, http, { scope: 'openid offline_access', prompt });
        const tokens = await again.redeem();
        expect(tokens.scope!.split(' ').sort()).toEqual(['offline_access', 'openid']);
      },
    );

    test('an application without refresh tokens: not advertised, and asking for it is invalid_scope', async () => {
      const config = await configOf('reader');
      expect(config.serverMetadata().scopes_supported).not.toContain('offline_access');
      const { callback } = await authorize(config, CALLBACK, new CookieClient(), { scope: 'openid offline_access' });
      expect(callback.searchParams.get('error')).toBe('invalid_scope');
      expect(callback.searchParams.get('code')).toBeNull();
      const tokens = await (await authorize(config, CALLBACK, new CookieClient())).redeem();
      expect(tokens.refresh_token).toBeUndefined();
    });
  });

  describe('a single-page app on a loopback address', () => {
    test('declared application_type web, it renews silently: prompt=none returns a code', async () => {
      const config = await configOf('spa');
      const http = new CookieClient();
      await (await authorize(config, SPA_CALLBACK, http)).redeem();
      const silent = await authorize(config, SPA_CALLBACK, http, { prompt: 'none' });
      expect(silent.callback.searchParams.get('error')).toBeNull();
      const tokens = await silent.redeem();
      expect(tokens.access_token).toEqual(expect.any(String));
      // Web: the redirect URI matches exactly, port included (a native app's would match on any port).
      const elsewhere = await http.request(
        client.buildAuthorizationUrl(config, {
          redirect_uri: 'http://127.0.0.1:5999/callback',
          scope: 'openid',
          code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
          code_challenge_method: 'S256',
        }).href,
      );
      expect(elsewhere.status).toBe(400);
    });

    test('left to the derived type (native), prompt=none is refused: the engine wants an interaction', async () => {
      const config = await configOf('tool');
      const http = new CookieClient();
      await (await authorize(config, NATIVE_CALLBACK, http)).redeem();
      const silent = await authorize(config, NATIVE_CALLBACK, http, { prompt: 'none' });
      expect(silent.callback.searchParams.get('code')).toBeNull();
      expect(silent.callback.searchParams.get('error')).toEqual(expect.stringMatching(/_required$/));
    });
  });
});
