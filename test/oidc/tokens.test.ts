/** The token endpoint: code exchange rules, refresh rotation and reuse, client authentication. */
import * as client from 'openid-client';
import { sql } from 'kysely';
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { postToken } from '../helpers/oidc-rp.js';
import { runFlow, tokensOf, type Flow } from '../helpers/oidc-flow.js';

describe.each(engines)('OIDC tokens (%s)', (engine) => {
  const web = useBrowser();
  let idp: OidcTestServer;

  beforeAll(async () => {
    idp = await startOidcServer(engine, web.rp.url, [
      { slug: 'wiki' },
      { slug: 'short', tokens: { access_token_ttl: 120, id_token_ttl: 90, refresh_token_ttl: 3600 } },
    ]);
  });
  afterAll(async () => {
    await idp?.close();
  });

  async function codeFlow(slug = 'wiki'): Promise<Flow> {
    const user = await idp.user();
    return runFlow(web.page, idp.apps[slug]!, { email: user.email, password: PASSWORD });
  }

  const codeForm = (flow: Flow, slug = 'wiki') => ({
    grant_type: 'authorization_code',
    code: flow.callback.searchParams.get('code')!,
    redirect_uri: idp.apps[slug]!.redirect_uri,
    client_id: idp.apps[slug]!.client_id,
    client_secret: idp.apps[slug]!.client_secret,
    code_verifier: flow.request.verifier,
  });

  test('code exchange with form fields (client_secret_post) returns the spec token response', async () => {
    const flow = await codeFlow();
    const response = await postToken(idp.url, codeForm(flow));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 300,
      refresh_token: expect.any(String),
      id_token: expect.any(String),
      scope: expect.stringContaining('openid'),
    });
  });

  test('client_secret_basic is accepted too', async () => {
    const flow = await codeFlow();
    const { client_id, client_secret, ...form } = codeForm(flow);
    const response = await fetch(`${idp.url}/application/o/token/`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams(form).toString(),
    });
    expect(response.status).toBe(200);
  });

  test('a code works once: the second exchange fails with invalid_grant', async () => {
    const flow = await codeFlow();
    expect((await postToken(idp.url, codeForm(flow))).status).toBe(200);
    const again = await postToken(idp.url, codeForm(flow));
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(again.headers.get('cache-control')).toBe('no-store');
  });

  test('two concurrent exchanges of one code: exactly one gets tokens', async () => {
    const flow = await codeFlow();
    const results = await Promise.all([1, 2, 3].map(() => postToken(idp.url, codeForm(flow))));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
    expect(results.filter((r) => r.status === 400).every((r) => r.body.error === 'invalid_grant')).toBe(true);
  });

  test('a code expires after 60 seconds: invalid_grant', async () => {
    const flow = await codeFlow();
    // The 60 s rule stays as it is; the test ages the stored code instead of waiting.
    await sql`update oidc_payloads set expires_at = now() - interval '1 second' where model = 'AuthorizationCode'`.execute(
      idp.db.database.db,
    );
    const response = await postToken(idp.url, codeForm(flow));
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_grant');
  });

  test('the code is stored with a 60 second lifetime', async () => {
    const before = Date.now();
    const flow = await codeFlow();
    const row = await idp.store.oidcPayloads.find('AuthorizationCode', flow.callback.searchParams.get('code')!, new Date());
    const lifetime = (row!.expires_at!.getTime() - before) / 1000;
    expect(lifetime).toBeGreaterThan(50);
    expect(lifetime).toBeLessThanOrEqual(62);
  });

  test('a wrong code_verifier or redirect_uri fails with invalid_grant', async () => {
    const flow = await codeFlow();
    expect((await postToken(idp.url, { ...codeForm(flow), code_verifier: 'x'.repeat(43) })).body.error).toBe('invalid_grant');
    const flow2 = await codeFlow();
    const mismatch = await postToken(idp.url, { ...codeForm(flow2), redirect_uri: 'http://127.0.0.1:1/other' });
    expect(mismatch.body.error).toBe('invalid_grant');
  });

  test('refresh rotates the refresh token; reusing a rotated one fails and revokes the grant', async () => {
    const flow = await codeFlow();
    const first = await tokensOf(flow);
    const second = await client.refreshTokenGrant(flow.config, first.refresh_token!);
    expect(second.refresh_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.id_token).toEqual(expect.any(String));
    expect(second.expires_in).toBe(300);
    // Rotation does not extend the refresh lifetime: it counts from the first issue.
    const [oldRow, newRow] = await Promise.all(
      [first, second].map((t) => idp.store.oidcPayloads.find('RefreshToken', t.refresh_token!, new Date())),
    );
    expect(Math.abs(newRow!.expires_at!.getTime() - oldRow!.expires_at!.getTime())).toBeLessThan(3000);

    const reuse = await postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      client_id: idp.apps.wiki!.client_id,
      client_secret: idp.apps.wiki!.client_secret,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    // The whole grant is gone: the newest refresh token and the access token stop working too.
    await expect(client.refreshTokenGrant(flow.config, second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const userinfo = await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${second.access_token}` } });
    expect(userinfo.status).toBe(401);
  });

  test('refresh tokens outlive the browser session (30 days by default)', async () => {
    const flow = await codeFlow();
    const tokens = await tokensOf(flow);
    const row = await idp.store.oidcPayloads.find('RefreshToken', tokens.refresh_token!, new Date());
    const days = (row!.expires_at!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    await web.context.clearCookies();
    expect((await client.refreshTokenGrant(flow.config, tokens.refresh_token!)).access_token).toEqual(expect.any(String));
  });

  test('per-application token lifetimes override the defaults', async () => {
    const flow = await codeFlow('short');
    const tokens = await tokensOf(flow);
    expect(tokens.expires_in).toBe(120);
    const claims = tokens.claims()!;
    expect(claims.exp - claims.iat).toBe(90);
    const row = await idp.store.oidcPayloads.find('RefreshToken', tokens.refresh_token!, new Date());
    expect((row!.expires_at!.getTime() - Date.now()) / 1000).toBeLessThanOrEqual(3600);
  });

  test('a wrong client secret: 401 invalid_client, JSON, no-store', async () => {
    const flow = await codeFlow();
    const response = await postToken(idp.url, { ...codeForm(flow), client_secret: 'wrong-secret-0123456789' });
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_client');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toContain('application/json');
  });

  test('an unknown client at the token endpoint: 401 invalid_client', async () => {
    const response = await postToken(idp.url, { grant_type: 'authorization_code', code: 'x', client_id: 'nope', client_secret: 'x' });
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_client');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  test('a missing parameter: 400 invalid_request', async () => {
    const response = await postToken(idp.url, {
      grant_type: 'authorization_code',
      client_id: idp.apps.wiki!.client_id,
      client_secret: idp.apps.wiki!.client_secret,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });
});
