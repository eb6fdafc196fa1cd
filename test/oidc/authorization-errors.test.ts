/** Authorization-request errors (no browser needed: each answers before any page), discovery and JWKS. */
import * as client from 'openid-client';
import { engines } from '../helpers/database.js';
import { startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';

describe.each(engines)('OIDC authorization errors, discovery, JWKS (%s)', (engine) => {
  let idp: OidcTestServer;
  const callback = 'http://127.0.0.1:1/callback';

  beforeAll(async () => {
    idp = await startOidcServer(engine, callback, [{ slug: 'wiki' }, { slug: 'narrow', scopes: ['openid'] }]);
  });
  afterAll(async () => idp?.close());

  async function authorize(params: Record<string, string | undefined>, slug = 'wiki') {
    const app = idp.apps[slug]!;
    const query = new URLSearchParams();
    const all = {
      client_id: app.client_id,
      response_type: 'code',
      scope: 'openid profile email',
      redirect_uri: app.redirect_uri,
      state: 'st-1',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      ...params,
    };
    for (const [key, value] of Object.entries(all)) if (value !== undefined) query.set(key, value);
    const response = await fetch(`${idp.url}/application/o/authorize/?${query}`, { redirect: 'manual' });
    const location = response.headers.get('location');
    return {
      status: response.status,
      location: location ? new URL(location, idp.url) : undefined,
      body: await response.text(),
      headers: response.headers,
    };
  }

  test('a valid request goes to the sign-in page of its application', async () => {
    const { status, location } = await authorize({});
    expect(status).toBe(303);
    expect(location!.pathname).toMatch(/^\/if\/flow\/wiki\/[^/]+\/$/);
  });

  test('without PKCE: invalid_request redirected to the application, with state', async () => {
    const { location } = await authorize({ code_challenge: undefined, code_challenge_method: undefined });
    expect(location!.href.startsWith(callback)).toBe(true);
    expect(location!.searchParams.get('error')).toBe('invalid_request');
    expect(location!.searchParams.get('state')).toBe('st-1');
  });

  test('a plain code_challenge_method is refused', async () => {
    const { location } = await authorize({ code_challenge_method: 'plain', code_challenge: 'x'.repeat(43) });
    expect(location!.searchParams.get('error')).toBe('invalid_request');
  });

  test('without the openid scope: invalid_scope', async () => {
    const { location } = await authorize({ scope: 'profile email' });
    expect(location!.href.startsWith(callback)).toBe(true);
    expect(location!.searchParams.get('error')).toBe('invalid_scope');
    expect(location!.searchParams.get('state')).toBe('st-1');
  });

  test('without the openid scope but with a parameter only OpenID Connect knows (nonce, max_age): still invalid_scope', async () => {
    for (const extra of [{ nonce: 'n-1' }, { max_age: '60' }]) {
      const { location } = await authorize({ scope: 'profile', ...extra });
      expect(location!.searchParams.get('error')).toBe('invalid_scope');
      expect(location!.searchParams.get('state')).toBe('st-1');
    }
  });

  test('a scope the application may not use: invalid_scope', async () => {
    const { location } = await authorize({ scope: 'openid email' }, 'narrow');
    expect(location!.searchParams.get('error')).toBe('invalid_scope');
  });

  test('only response_type=code is supported', async () => {
    const { location } = await authorize({ response_type: 'id_token' });
    // Implicit-style response types default to the fragment response mode.
    const error = location!.searchParams.get('error') ?? new URLSearchParams(location!.hash.slice(1)).get('error');
    expect(error).toBe('unsupported_response_type');
  });

  test('an unknown or missing client_id: a readable 400 page, never a redirect', async () => {
    for (const clientId of ['nope', undefined]) {
      const { status, location, body, headers } = await authorize({ client_id: clientId });
      expect(status).toBe(400);
      expect(location).toBeUndefined();
      expect(headers.get('content-type')).toContain('text/html');
      expect(body).toContain('not registered');
    }
  });

  test('an unregistered redirect_uri: a readable 400 page, never a redirect', async () => {
    const { status, location, body } = await authorize({ redirect_uri: 'https://evil.example.com/cb' });
    expect(status).toBe(400);
    expect(location).toBeUndefined();
    expect(body).toContain('redirect_uri');
    expect(body).not.toContain('<script');
  });

  test('discovery: exact issuer, shared endpoints, per-app JWKS and end-session, S256 only', async () => {
    const response = await fetch(`${idp.url}/application/o/wiki/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const doc = await response.json();
    expect(doc).toMatchObject({
      issuer: `${idp.url}/application/o/wiki/`,
      authorization_endpoint: `${idp.url}/application/o/authorize/`,
      token_endpoint: `${idp.url}/application/o/token/`,
      userinfo_endpoint: `${idp.url}/application/o/userinfo/`,
      jwks_uri: `${idp.url}/application/o/wiki/jwks/`,
      end_session_endpoint: `${idp.url}/application/o/wiki/end-session/`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(doc.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_post', 'client_secret_basic']));
    const other = await (await fetch(`${idp.url}/application/o/narrow/.well-known/openid-configuration`)).json();
    expect(other.issuer).toBe(`${idp.url}/application/o/narrow/`);
    expect((await fetch(`${idp.url}/application/o/unknown/.well-known/openid-configuration`)).status).toBe(404);
  });

  test('names an object has from its prototype are no endpoints: a page that says not found, not a server error', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const response = await fetch(`${idp.url}/application/o/${name}/`);
      expect([name, response.status]).toEqual([name, 404]);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    }
  });

  test('JWKS: public RSA keys only, with kid, alg RS256 and use sig; the same set for every app', async () => {
    const jwks = await (await fetch(`${idp.url}/application/o/wiki/jwks/`)).json();
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of jwks.keys) {
      expect(key).toEqual({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String), n: expect.any(String), e: 'AQAB' });
    }
    expect(await (await fetch(`${idp.url}/application/o/narrow/jwks/`)).json()).toEqual(jwks);
  });

  test('end-session answers on the per-app path', async () => {
    const response = await fetch(`${idp.url}/application/o/wiki/end-session/`, { redirect: 'manual' });
    expect(response.status).toBeLessThan(500);
  });
});
