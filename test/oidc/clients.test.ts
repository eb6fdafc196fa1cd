/**
 * Every kind of client a deployment connects: a public native app (loopback and private-use redirects, no
 * secret), a machine client (client credentials, with oauth4webapi in its strict mode), an API checking tokens
 * (introspection as a resource server) and revocation. Two applications of each kind where the rule is per app.
 */
import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, redeemCode } from '../helpers/http-client.js';

const CALLBACK = 'http://127.0.0.1:1/callback';

/** A form POST to a shared endpoint, authenticated with client_secret_basic when a secret is given. */
async function post(idp: OidcTestServer, endpoint: string, form: Record<string, string>, basic?: { id: string; secret: string }) {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (basic)
    headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  const response = await fetch(`${idp.url}/application/o/${endpoint}/`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const credentials = (app: TestApp) => ({ id: app.client_id, secret: app.client_secret });

describe.each(engines)('client kinds (%s)', (engine) => {
  let idp: OidcTestServer;

  beforeAll(async () => {
    idp = await startOidcServer(engine, CALLBACK, [
      { slug: 'wiki' },
      { slug: 'crm' },
      // Native apps (RFC 8252): a loopback redirect (any port) and a private-use scheme; no secret.
      { slug: 'cli', client_type: 'public', redirect_uris: ['http://127.0.0.1/cb', 'com.example.cli:/cb'] },
      { slug: 'desktop', client_type: 'public', redirect_uris: ['http://[::1]/cb'] },
      // Machine clients: client credentials only, with API scopes of their own.
      { slug: 'reports', grant_types: ['client_credentials'], api_scopes: ['reports:read', 'reports:write'] },
      { slug: 'billing', grant_types: ['client_credentials'], api_scopes: ['billing:read'] },
      // An API that checks tokens issued to the others.
      { slug: 'api', resource_server: true },
    ]);
  });
  afterAll(async () => idp?.close());

  /** Signs a new user in over HTTP (e-mail, password) to `app` with `redirectUri`; the code arrives there. */
  async function signIn(app: TestApp, redirectUri = app.redirect_uri) {
    const user = await idp.user();
    const http = new CookieClient();
    const signedIn = await httpSignIn(http, { ...app, redirect_uri: redirectUri }, idp.url, user.email, PASSWORD);
    return { user, signedIn };
  }

  /** Redeems a public client's code: client_id and the PKCE verifier, no secret. */
  async function redeemPublic(app: TestApp, redirectUri: string, signedIn: Awaited<ReturnType<typeof signIn>>['signedIn']) {
    return post(idp, 'token', {
      grant_type: 'authorization_code',
      code: signedIn.callback.searchParams.get('code') ?? '',
      redirect_uri: redirectUri,
      client_id: app.client_id,
      code_verifier: signedIn.request.verifier,
    });
  }

  describe('public native apps', () => {
    test.each([
      ['cli', 'http://127.0.0.1:49152/cb'],
      ['cli', 'http://127.0.0.1:61234/cb'],
      ['desktop', 'http://[::1]:50000/cb'],
    ])(
      '%s signs in on loopback %s (any port), redeems without a secret, refreshes with rotation, reads UserInfo',
      async (slug, redirectUri) => {
        const app = idp.apps[slug]!;
        const { user, signedIn } = await signIn(app, redirectUri);
        expect(signedIn.callback.href.startsWith(redirectUri)).toBe(true);
        const tokens = await redeemPublic(app, redirectUri, signedIn);
        expect(tokens.status).toBe(200);
        expect(tokens.body).toEqual(
          expect.objectContaining({ access_token: expect.any(String), id_token: expect.any(String), refresh_token: expect.any(String) }),
        );
        expect(decodeJwt(tokens.body.id_token)).toMatchObject({ sub: user.uuid, aud: app.client_id });

        const refreshed = await post(idp, 'token', {
          grant_type: 'refresh_token',
          refresh_token: tokens.body.refresh_token,
          client_id: app.client_id,
        });
        expect(refreshed.status).toBe(200);
        expect(refreshed.body.refresh_token).not.toBe(tokens.body.refresh_token);
        // The rotated token is spent: using it again is refused (and revokes the grant).
        expect(
          (await post(idp, 'token', { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: app.client_id }))
            .body.error,
        ).toBe('invalid_grant');

        const userinfo = await fetch(`${idp.url}/application/o/userinfo/`, {
          headers: { Authorization: `Bearer ${tokens.body.access_token}` },
        });
        expect(userinfo.status).toBe(401); // revoked with the grant by the reuse above
      },
    );

    test('a private-use scheme redirect (com.example.cli:/cb) receives the code, which redeems without a secret', async () => {
      const app = idp.apps.cli!;
      const { signedIn } = await signIn(app, 'com.example.cli:/cb');
      expect(signedIn.callback.protocol).toBe('com.example.cli:');
      expect((await redeemPublic(app, 'com.example.cli:/cb', signedIn)).status).toBe(200);
    });

    test('PKCE stays mandatory for a public app: no code_challenge is an error at its redirect URI', async () => {
      const app = idp.apps.cli!;
      const url = new URL(`${idp.url}/application/o/authorize/`);
      for (const [key, value] of Object.entries({
        client_id: app.client_id,
        response_type: 'code',
        scope: 'openid',
        redirect_uri: 'http://127.0.0.1:5555/cb',
        state: 's',
      }))
        url.searchParams.set(key, value);
      const response = await fetch(url, { redirect: 'manual' });
      const location = new URL(response.headers.get('location')!);
      expect(location.origin + location.pathname).toBe('http://127.0.0.1:5555/cb');
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('error_description')).toMatch(/PKCE/);
    });

    test('a loopback port other than the registered one is refused for a confidential app (a page, no redirect)', async () => {
      const app = idp.apps.wiki!;
      const url = new URL(`${idp.url}/application/o/authorize/`);
      for (const [key, value] of Object.entries({
        client_id: app.client_id,
        response_type: 'code',
        scope: 'openid',
        redirect_uri: 'http://127.0.0.1:2/callback',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }))
        url.searchParams.set(key, value);
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('redirect_uri');
    });

    test('a confidential app cannot skip its secret the way a public one does', async () => {
      const wiki = await post(idp, 'token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'client-wiki' });
      expect(wiki.status).toBe(401);
      expect(wiki.body.error).toBe('invalid_client');
    });
  });

  describe('machine clients (client credentials, oauth4webapi strict)', () => {
    async function clientCredentials(slug: string, scope: string) {
      const app = idp.apps[slug]!;
      const as = await oauth.processDiscoveryResponse(
        new URL(app.issuer),
        await oauth.discoveryRequest(new URL(app.issuer), { [oauth.allowInsecureRequests]: true }),
      );
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        { client_id: app.client_id },
        oauth.ClientSecretBasic(app.client_secret),
        new URLSearchParams({ scope }),
        { [oauth.allowInsecureRequests]: true },
      );
      return oauth.processClientCredentialsResponse(as, { client_id: app.client_id }, response);
    }

    test.each([
      ['reports', 'reports:read'],
      ['billing', 'billing:read'],
    ])('%s gets an access token for %s naming the client: no user, no refresh token, no ID token', async (slug, scope) => {
      const tokens = await clientCredentials(slug, scope);
      expect(tokens.access_token).toEqual(expect.any(String));
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.refresh_token).toBeUndefined();
      expect(tokens.id_token).toBeUndefined();
      expect(tokens.scope).toBe(scope);

      const seen = await post(idp, 'introspect', { token: tokens.access_token }, credentials(idp.apps.api!));
      expect(seen.body).toEqual({
        active: true,
        scope,
        client_id: `client-${slug}`,
        exp: expect.any(Number),
        iat: expect.any(Number),
        iss: idp.apps[slug]!.issuer,
        token_type: 'Bearer',
      });
    });

    test("a scope the application was not given, or another application's scope, is invalid_scope", async () => {
      for (const scope of ['reports:delete', 'billing:read', 'openid']) {
        const answer = await post(idp, 'token', { grant_type: 'client_credentials', scope }, credentials(idp.apps.reports!));
        expect({ scope, status: answer.status, error: answer.body.error }).toEqual({ scope, status: 400, error: 'invalid_scope' });
      }
    });

    test('oauth4webapi strict: the API introspects a machine token, its client revokes it, and it is inactive after', async () => {
      const tokens = await clientCredentials('reports', 'reports:read');
      const discover = async (slug: string) => {
        const issuer = new URL(idp.apps[slug]!.issuer);
        return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }));
      };
      const introspect = async () => {
        const [as, api] = [await discover('api'), idp.apps.api!];
        const response = await oauth.introspectionRequest(
          as,
          { client_id: api.client_id },
          oauth.ClientSecretBasic(api.client_secret),
          tokens.access_token,
          { [oauth.allowInsecureRequests]: true },
        );
        return oauth.processIntrospectionResponse(as, { client_id: api.client_id }, response);
      };
      expect(await introspect()).toMatchObject({ active: true, client_id: 'client-reports', scope: 'reports:read', token_type: 'Bearer' });

      const [as, reports] = [await discover('reports'), idp.apps.reports!];
      const revoked = await oauth.revocationRequest(
        as,
        { client_id: reports.client_id },
        oauth.ClientSecretBasic(reports.client_secret),
        tokens.access_token,
        { [oauth.allowInsecureRequests]: true },
      );
      await oauth.processRevocationResponse(revoked);
      expect(await introspect()).toEqual({ active: false });
    });

    test('an application without the client_credentials grant is unauthorized_client', async () => {
      const answer = await post(idp, 'token', { grant_type: 'client_credentials' }, credentials(idp.apps.wiki!));
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('unauthorized_client');
    });
  });

  describe('introspection (RFC 7662) and revocation (RFC 7009)', () => {
    async function wikiTokens() {
      const { user, signedIn } = await signIn(idp.apps.wiki!);
      const tokens = await redeemCode(idp.apps.wiki!, idp.url, signedIn);
      expect(tokens.status).toBe(200);
      return { user, tokens: tokens.body as { access_token: string; refresh_token: string } };
    }

    test('the token\'s own client and a resource server see it active; another application sees {"active": false}', async () => {
      const { user, tokens } = await wikiTokens();
      const expected = {
        active: true,
        scope: 'openid profile email',
        client_id: 'client-wiki',
        sub: user.uuid,
        exp: expect.any(Number),
        iat: expect.any(Number),
        iss: idp.apps.wiki!.issuer,
        token_type: 'Bearer',
      };
      expect((await post(idp, 'introspect', { token: tokens.access_token }, credentials(idp.apps.wiki!))).body).toEqual(expected);
      expect((await post(idp, 'introspect', { token: tokens.access_token }, credentials(idp.apps.api!))).body).toEqual(expected);
      expect((await post(idp, 'introspect', { token: tokens.access_token }, credentials(idp.apps.crm!))).body).toEqual({ active: false });
      const refresh = await post(
        idp,
        'introspect',
        { token: tokens.refresh_token, token_type_hint: 'refresh_token' },
        credentials(idp.apps.wiki!),
      );
      expect(refresh.body).toMatchObject({ active: true, client_id: 'client-wiki', sub: user.uuid });
      expect((await post(idp, 'introspect', { token: 'not-a-token' }, credentials(idp.apps.wiki!))).body).toEqual({ active: false });
    });

    test("introspection needs the caller's own secret; public apps cannot introspect", async () => {
      const { tokens } = await wikiTokens();
      const wrong = await post(idp, 'introspect', { token: tokens.access_token }, { id: 'client-wiki', secret: 'wrong-secret-0123456789' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toBe('invalid_client');
      const anonymous = await post(idp, 'introspect', { token: tokens.access_token, client_id: 'client-cli' });
      expect(anonymous.status).toBe(401);
      expect((await post(idp, 'introspect', {}, credentials(idp.apps.wiki!))).body.error).toBe('invalid_request');
    });

    test('revoking a refresh token ends its grant: the access token is inactive, refresh and UserInfo refused', async () => {
      const { tokens } = await wikiTokens();
      const revoked = await post(
        idp,
        'revoke',
        { token: tokens.refresh_token, token_type_hint: 'refresh_token' },
        credentials(idp.apps.wiki!),
      );
      expect(revoked.status).toBe(200);
      expect((await post(idp, 'introspect', { token: tokens.access_token }, credentials(idp.apps.wiki!))).body).toEqual({ active: false });
      expect(
        (await post(idp, 'token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, credentials(idp.apps.wiki!))).body
          .error,
      ).toBe('invalid_grant');
      expect(
        (await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status,
      ).toBe(401);
    });

    test('another application cannot revoke a token; its own client can, and an access token takes its grant along', async () => {
      const { tokens } = await wikiTokens();
      await post(idp, 'revoke', { token: tokens.access_token }, credentials(idp.apps.crm!));
      expect((await post(idp, 'introspect', { token: tokens.access_token }, credentials(idp.apps.wiki!))).body.active).toBe(true);
      expect((await post(idp, 'revoke', { token: tokens.access_token }, credentials(idp.apps.wiki!))).status).toBe(200);
      expect((await post(idp, 'introspect', { token: tokens.access_token }, credentials(idp.apps.wiki!))).body).toEqual({ active: false });
      // The engine's rule: a revoked access token revokes the grant it came from (docs/integrating.md).
      expect(
        (await post(idp, 'token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, credentials(idp.apps.wiki!))).body
          .error,
      ).toBe('invalid_grant');
    });

    test("every application's discovery advertises the shared introspection and revocation endpoints", async () => {
      for (const slug of ['wiki', 'cli', 'reports']) {
        const discovery = await (await fetch(`${idp.apps[slug]!.issuer}.well-known/openid-configuration`)).json();
        expect(discovery).toMatchObject({
          introspection_endpoint: `${idp.url}/application/o/introspect/`,
          revocation_endpoint: `${idp.url}/application/o/revoke/`,
        });
      }
    });
  });
});
