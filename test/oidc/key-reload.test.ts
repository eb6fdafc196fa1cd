/**
 * A rotated signing key reaches running processes without a restart (keys.reload_seconds): the JWKS publishes
 * it beside the old key, new ID tokens and logout tokens are signed with it, and what was issued before (refresh
 * tokens, the SSO session, a sign-in under way) keeps working. On PostgreSQL, across two replicas.
 */
import * as jose from 'jose';
import { rotateSigningKeys } from '../../src/domain/signing-keys.js';
import { logoutTokenSigner } from '../../src/oidc/logout-token.js';
import { workerLogoutSigner } from '../../src/oidc/worker-signer.js';
import { createLogger } from '../../src/observability/logger.js';
import { openDatabase } from '../../src/store/database.js';
import { createStore } from '../../src/store/store.js';
import { eventually } from '../helpers/eventually.js';
import { engines, openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, pkceRequest, redeemCode, submit, type HttpResponse } from '../helpers/http-client.js';

const CALLBACK = 'http://127.0.0.1:1/cb';
const RELOAD = { keys: { reload_seconds: 0.2 } };

const kidOf = (jwt: string) => jose.decodeProtectedHeader(jwt).kid;

/** As `idp keys rotate` does it, for applications that all sign with RS256: the new RS256 kid. */
const rotateSigningKey = async (store: OidcTestServer['store'], secret: string) =>
  (await rotateSigningKeys(store, secret, ['RS256']))[0]!.kid;

async function jwksOf(app: TestApp): Promise<jose.JSONWebKeySet> {
  const response = await fetch(`${app.issuer}jwks/`);
  expect(response.status).toBe(200);
  return (await response.json()) as jose.JSONWebKeySet;
}

/** The app's JWKS once it publishes `kid`. */
const jwksWith = (app: TestApp, kid: string) =>
  eventually(`${app.issuer} publishes ${kid}`, async () => {
    const set = await jwksOf(app);
    return set.keys.some((key) => key.kid === kid) ? set : undefined;
  });

async function refresh(app: TestApp, baseUrl: string, refreshToken: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}/application/o/token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: app.client_id,
      client_secret: app.client_secret,
    }).toString(),
  });
  return { status: response.status, body: await response.json() };
}

describe.each(engines)('a running service reloads rotated signing keys (%s)', (engine) => {
  let idp: OidcTestServer;
  beforeAll(async () => {
    idp = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki' }, { slug: 'chat' }], { overrides: RELOAD });
  });
  afterAll(async () => idp?.close());

  test('new tokens carry the new kid, the JWKS keeps the old one, refresh tokens, SSO and a sign-in under way survive', async () => {
    const app = idp.apps.wiki!;
    const user = await idp.user();
    const browser = new CookieClient();
    const first = await redeemCode(app, idp.url, await httpSignIn(browser, app, idp.url, user.email, PASSWORD));
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).toEqual(expect.any(String));
    const oldKid = kidOf(first.body.id_token)!;
    expect((await jwksOf(app)).keys.map((key) => key.kid)).toEqual([oldKid]);
    const before = { wiki: idp.providers.bySlug.get('wiki')!, chat: idp.providers.bySlug.get('chat')! };

    // A second person is on the e-mail page when the key changes: the old provider started the interaction.
    const other = await idp.user();
    const pending = new CookieClient();
    const pendingRequest = await pkceRequest(app, idp.url);
    const emailPage = await pending.follow(await pending.request(pendingRequest.url.href), app.redirect_uri);
    expect(emailPage).not.toBeInstanceOf(URL);

    // As `idp keys rotate` does it, on the service's own database.
    const newKid = await rotateSigningKey(idp.store, idp.settings.secrets.key);
    const jwks = await jwksWith(app, newKid);
    expect(jwks.keys.map((key) => key.kid)).toEqual([newKid, oldKid]);
    expect((await jwksWith(idp.apps.chat!, newKid)).keys.map((key) => key.kid)).toEqual([newKid, oldKid]);
    expect(jwks.keys.every((key) => key.d === undefined)).toBe(true);
    const keySet = jose.createLocalJWKSet(jwks);
    const verify = (token: string) => jose.jwtVerify(token, keySet, { issuer: app.issuer, audience: app.client_id });

    // Every application got a new provider, and both maps agree on it.
    for (const slug of ['wiki', 'chat'] as const) {
      const now = idp.providers.bySlug.get(slug)!;
      expect(now.provider).not.toBe(before[slug].provider);
      expect(now.app).toBe(before[slug].app);
      expect(idp.providers.byClientId.get(now.app.client_id)).toBe(now);
    }

    // The ID token signed before the rotation still verifies against the published set.
    expect((await verify(first.body.id_token)).protectedHeader.kid).toBe(oldKid);

    // The SSO session survives (same cookie keys, same store): straight back with a code, signed with the new key.
    const again = await pkceRequest(app, idp.url);
    const callback = await browser.follow(await browser.request(again.url.href), app.redirect_uri);
    expect(callback).toBeInstanceOf(URL);
    const sso = await redeemCode(app, idp.url, { request: again, callback: callback as URL });
    expect(sso.status).toBe(200);
    const ssoToken = await verify(sso.body.id_token);
    expect(ssoToken.protectedHeader.kid).toBe(newKid);
    expect(ssoToken.payload.sub).toBe(user.uuid);

    // The sign-in under way finishes on the new provider.
    const passwordPage = await submit(pending, emailPage as HttpResponse, { email: other.email });
    const done = await pending.follow(await submit(pending, passwordPage, { password: PASSWORD }), app.redirect_uri);
    expect(done).toBeInstanceOf(URL);
    const late = await redeemCode(app, idp.url, { request: pendingRequest, callback: done as URL });
    expect(late.status).toBe(200);
    const lateToken = await verify(late.body.id_token);
    expect(lateToken.protectedHeader.kid).toBe(newKid);
    expect(lateToken.payload.sub).toBe(other.uuid);

    // A refresh token issued before the rotation still works; its new ID token carries the new kid.
    const refreshed = await refresh(app, idp.url, first.body.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await verify(refreshed.body.id_token)).protectedHeader.kid).toBe(newKid);

    // The embedded workers' logout signer reads the same set: its tokens carry the new kid as well.
    const logoutToken = await logoutTokenSigner(idp.providers)(app.client_id, user.uuid);
    const logout = await jose.jwtVerify(logoutToken, keySet, { issuer: app.issuer, audience: app.client_id, typ: 'logout+jwt' });
    expect(logout.protectedHeader.kid).toBe(newKid);
  });

  test('the `idp worker` signer signs with a rotated key once reload_seconds have passed, without a restart', async () => {
    const app = idp.apps.chat!;
    const sign = workerLogoutSigner(idp.settings, idp.store, createLogger('silent'));
    const [active] = await idp.store.signingKeys.list();
    expect(kidOf(await sign(app.client_id, 'user-1'))).toBe(active!.kid);

    const newKid = await rotateSigningKey(idp.store, idp.settings.secrets.key);
    const token = await eventually('the worker signs with the new key', async () => {
      const signed = await sign(app.client_id, 'user-1');
      return kidOf(signed) === newKid ? signed : undefined;
    });
    const jwks = jose.createLocalJWKSet(await jwksWith(app, newKid));
    const { payload } = await jose.jwtVerify(token, jwks, { issuer: app.issuer, audience: app.client_id, typ: 'logout+jwt' });
    expect(payload.sub).toBe('user-1');
  });
});

// Two processes on one embedded database cannot be: PGlite is single-process.
const onPostgres = engines.includes('postgres') ? describe : describe.skip;

onPostgres('two replicas on one PostgreSQL database', () => {
  const engine = 'postgres' as const;
  let db: TestDatabase;
  let replicaDb: TestDatabase;
  let a: OidcTestServer | undefined;
  let b: OidcTestServer | undefined;
  beforeAll(async () => {
    db = await openTestDatabase(engine);
    // The second replica gets its own connection pool on the same database, as another process would.
    const database = await openDatabase({ url: db.url!, poolSize: 5 });
    replicaDb = { engine, database, url: db.url, store: createStore(database.db), close: () => database.close() };
    a = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki' }], { db, overrides: RELOAD });
    b = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki' }], { db: replicaDb, overrides: RELOAD });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await replicaDb?.close();
    await db?.close();
  });

  test('a rotation through one replica is published and used by the other', async () => {
    const [appA, appB] = [a!.apps.wiki!, b!.apps.wiki!];
    const [oldKid] = (await jwksOf(appA)).keys.map((key) => key.kid);
    expect((await jwksOf(appB)).keys.map((key) => key.kid)).toEqual([oldKid]);

    const newKid = await rotateSigningKey(a!.store, a!.settings.secrets.key);
    const jwks = await jwksWith(appB, newKid);
    expect(jwks.keys.map((key) => key.kid)).toEqual([newKid, oldKid]);
    expect((await jwksWith(appA, newKid)).keys.map((key) => key.kid)).toEqual([newKid, oldKid]);

    const user = await a!.user();
    const tokens = await redeemCode(appB, b!.url, await httpSignIn(new CookieClient(), appB, b!.url, user.email, PASSWORD));
    expect(tokens.status).toBe(200);
    const { protectedHeader, payload } = await jose.jwtVerify(tokens.body.id_token, jose.createLocalJWKSet(jwks), {
      issuer: appB.issuer,
      audience: appB.client_id,
    });
    expect(protectedHeader.kid).toBe(newKid);
    expect(payload.sub).toBe(user.uuid);
  });
});
