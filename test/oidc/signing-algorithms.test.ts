/**
 * Per-application ID-token signing algorithms (`id_token_signed_response_alg`): an ES256 and an EdDSA application
 * sign in with openid-client as the relying party (pinning the algorithm, verifying signatures against the JWKS),
 * refresh, hear backchannel logout tokens signed the same way — from the embedded workers and from the `idp worker`
 * signer — and keep working across a rotation that gives every algorithm a new key. RS256 stays the default.
 */
import * as jose from 'jose';
import * as client from 'openid-client';
import { ensureSigningKeys, rotateSigningKeys, signingAlgsOf } from '../../src/domain/signing-keys.js';
import { logoutTokenSigner } from '../../src/oidc/logout-token.js';
import { workerLogoutSigner } from '../../src/oidc/worker-signer.js';
import { createLogger } from '../../src/observability/logger.js';
import type { SigningAlg } from '../../src/settings/signing-algorithms.js';
import { eventually } from '../helpers/eventually.js';
import { engines, openTestDatabase } from '../helpers/database.js';
import { CookieClient, submit } from '../helpers/http-client.js';
import { logoutTokenOf, verifyLogoutToken } from '../helpers/logout-token.js';
import { PASSWORD, startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { authorizationRequest, exchangeCode } from '../helpers/oidc-rp.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { webhookSettings } from '../helpers/webhooks.js';
import { testSettings } from '../helpers/settings.js';

const CALLBACK = 'http://127.0.0.1:1/cb';
const LOGGED_OUT = 'http://127.0.0.1:1/logged-out';
/** Each application and the algorithm it signs with: `rs` says nothing and gets the default. */
const APPS = [
  ['rs', 'RS256'],
  ['es', 'ES256'],
  ['ed', 'EdDSA'],
] as const satisfies ReadonlyArray<readonly [string, SigningAlg]>;

async function jwksOf(app: TestApp): Promise<jose.JSONWebKeySet> {
  const response = await fetch(`${app.issuer}jwks/`);
  expect(response.status).toBe(200);
  return (await response.json()) as jose.JSONWebKeySet;
}

/** A careful relying party: pins the algorithm it was told about and verifies every ID token's signature (openid-client only checks claims by default). */
async function relyingParty(app: TestApp, alg: SigningAlg): Promise<client.Configuration> {
  const config = await client.discovery(
    new URL(app.issuer),
    app.client_id,
    { client_secret: app.client_secret, id_token_signed_response_alg: alg },
    client.ClientSecretPost(app.client_secret),
    { execute: [client.allowInsecureRequests] },
  );
  client.enableNonRepudiationChecks(config);
  return config;
}

describe.each(engines)('per-application ID-token signing algorithms (%s)', (engine) => {
  let esBackchannel: Receiver;
  let edBackchannel: Receiver;
  let idp: OidcTestServer;
  const app = (slug: string) => idp.apps[slug]!;

  beforeAll(async () => {
    esBackchannel = await startReceiver();
    edBackchannel = await startReceiver();
    const { applications: _, ...delivery } = webhookSettings([]);
    idp = await startOidcServer(
      engine,
      CALLBACK,
      [
        { slug: 'rs' },
        {
          slug: 'es',
          id_token_signed_response_alg: 'ES256',
          backchannel_logout_uri: `${esBackchannel.url}/bc`,
          post_logout_redirect_uris: [LOGGED_OUT],
        },
        { slug: 'ed', id_token_signed_response_alg: 'EdDSA', backchannel_logout_uri: `${edBackchannel.url}/bc` },
      ],
      { overrides: { ...delivery, keys: { reload_seconds: 0.2 } }, workers: true },
    );
  });
  afterAll(async () => {
    await idp?.close();
    await esBackchannel?.close();
    await edBackchannel?.close();
  });

  const activeKid = async (alg: SigningAlg) =>
    (await idp.store.signingKeys.list()).find((row) => row.state === 'active' && row.alg === alg)!.kid;

  /** Verifies an ID token against the application's JWKS, accepting only `alg`; returns its kid and claims. */
  async function verifyIdToken(slug: string, token: string, alg: SigningAlg) {
    const { issuer, client_id } = app(slug);
    const { protectedHeader, payload } = await jose.jwtVerify(token, jose.createLocalJWKSet(await jwksOf(app(slug))), {
      issuer,
      audience: client_id,
      algorithms: [alg],
    });
    expect(protectedHeader.alg).toBe(alg);
    return { kid: protectedHeader.kid, payload };
  }

  /** E-mail, then password (or straight back when the browser is signed in already), then the code exchange by openid-client. */
  async function signIn(slug: string, config: client.Configuration, browser: CookieClient, email: string) {
    const request = await authorizationRequest(config, app(slug));
    let landed = await browser.follow(await browser.request(request.url.href), CALLBACK);
    if (!(landed instanceof URL)) {
      const passwordPage = await submit(browser, landed, { email });
      landed = await browser.follow(await submit(browser, passwordPage, { password: PASSWORD }), CALLBACK);
    }
    expect(landed).toBeInstanceOf(URL);
    return exchangeCode(config, landed as URL, request);
  }

  test('every application lists the three algorithms in discovery; the JWKS publishes one public key of each', async () => {
    for (const [slug] of APPS) {
      const doc = await (await fetch(`${app(slug).issuer}.well-known/openid-configuration`)).json();
      expect([slug, doc.id_token_signing_alg_values_supported]).toEqual([slug, ['RS256', 'ES256', 'EdDSA']]);
    }
    const jwks = await jwksOf(app('es'));
    expect(jwks.keys).toEqual([
      { kty: 'RSA', alg: 'RS256', use: 'sig', kid: await activeKid('RS256'), n: expect.any(String), e: 'AQAB' },
      { kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: await activeKid('ES256'), x: expect.any(String), y: expect.any(String) },
      { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: await activeKid('EdDSA'), x: expect.any(String) },
    ]);
    expect(await jwksOf(app('rs'))).toEqual(jwks);
  });

  test.each(APPS)('%s signs in and refreshes with %s ID tokens that verify against the JWKS', async (slug, alg) => {
    const user = await idp.user();
    const config = await relyingParty(app(slug), alg);
    const tokens = await signIn(slug, config, new CookieClient(), user.email);
    expect(tokens.claims()!.sub).toBe(user.uuid);
    const signed = await verifyIdToken(slug, tokens.id_token!, alg);
    expect(signed.kid).toBe(await activeKid(alg));

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const again = await verifyIdToken(slug, refreshed.id_token!, alg);
    expect([again.kid, again.payload.sub]).toEqual([signed.kid, user.uuid]);
  });

  test('backchannel logout tokens carry the application algorithm, from the embedded workers and from the `idp worker` signer', async () => {
    const user = await idp.user();
    const browser = new CookieClient();
    const es = await signIn('es', await relyingParty(app('es'), 'ES256'), browser, user.email);
    await signIn('ed', await relyingParty(app('ed'), 'EdDSA'), browser, user.email);

    // RP-initiated logout at es: the engine verifies its ES256 id_token_hint with the client's algorithm.
    const params = new URLSearchParams({ id_token_hint: es.id_token!, post_logout_redirect_uri: LOGGED_OUT, state: 'bye' });
    const page = await browser.request(`${app('es').issuer}end-session/?${params}`, { headers: { Accept: 'text/html' } });
    expect(page.text).toContain('id="op.logoutForm"');
    const landed = await browser.follow(await submit(browser, page, {}), LOGGED_OUT);
    expect(landed).toBeInstanceOf(URL);
    expect((landed as URL).searchParams.get('state')).toBe('bye');

    for (const [slug, alg, receiver] of [
      ['es', 'ES256', esBackchannel],
      ['ed', 'EdDSA', edBackchannel],
    ] as const) {
      const [hit] = await receiver.waitFor(1);
      const payload = await verifyLogoutToken(hit!, app(slug), user.uuid, alg);
      expect(payload.sid).toEqual(expect.any(String));
      expect(jose.decodeProtectedHeader(logoutTokenOf(hit!)).kid).toBe(await activeKid(alg));
    }

    const sign = workerLogoutSigner(idp.settings, idp.store, createLogger('silent'));
    for (const [slug, alg] of APPS) {
      const token = await sign(app(slug).client_id, user.uuid);
      const { protectedHeader } = await jose.jwtVerify(token, jose.createLocalJWKSet(await jwksOf(app(slug))), {
        issuer: app(slug).issuer,
        audience: app(slug).client_id,
        typ: 'logout+jwt',
        algorithms: [alg],
      });
      expect([slug, protectedHeader.kid]).toEqual([slug, await activeKid(alg)]);
    }
  });

  test('a rotation gives every algorithm a new key: the JWKS keeps the old ones, earlier tokens verify, new ones carry the new kids', async () => {
    const user = await idp.user();
    const browser = new CookieClient();
    const before = new Map<SigningAlg, { kid: string; idToken: string; refreshToken: string }>();
    for (const [slug, alg] of APPS) {
      const tokens = await signIn(slug, await relyingParty(app(slug), alg), browser, user.email);
      before.set(alg, { kid: await activeKid(alg), idToken: tokens.id_token!, refreshToken: tokens.refresh_token! });
    }

    // As `idp keys rotate` does it: one command, every algorithm in use.
    const rotated = await rotateSigningKeys(idp.store, idp.settings.secrets.key, signingAlgsOf(idp.settings.applications));
    expect(rotated.map((key) => key.alg)).toEqual(['RS256', 'ES256', 'EdDSA']);
    const newKids = rotated.map((key) => key.kid);
    const oldKids = APPS.map(([, alg]) => before.get(alg)!.kid);
    // The running service notices within keys.reload_seconds: new keys first, the retired ones still published.
    const jwks = await eventually('the JWKS publishes the new keys', async () => {
      const set = await jwksOf(app('rs'));
      return newKids.every((kid) => set.keys.some((key) => key.kid === kid)) ? set : undefined;
    });
    expect(jwks.keys.map((key) => [key.alg, key.kid])).toEqual([
      ...rotated.map((key) => [key.alg, key.kid]),
      ...APPS.map(([, alg], i) => [alg, oldKids[i]]),
    ]);

    const signLogout = logoutTokenSigner(idp.providers);
    for (const [slug, alg] of APPS) {
      const { idToken, refreshToken, kid } = before.get(alg)!;
      expect((await verifyIdToken(slug, idToken, alg)).kid).toBe(kid);
      const newKid = rotated.find((key) => key.alg === alg)!.kid;
      // A relying party that discovers afresh (or whose JWKS cache is older than a minute) verifies the new kid.
      const refreshed = await client.refreshTokenGrant(await relyingParty(app(slug), alg), refreshToken);
      expect([slug, (await verifyIdToken(slug, refreshed.id_token!, alg)).kid]).toEqual([slug, newKid]);
      const logoutToken = await signLogout(app(slug).client_id, user.uuid);
      expect([slug, jose.decodeProtectedHeader(logoutToken)]).toEqual([slug, expect.objectContaining({ alg, kid: newKid })]);
    }
  });
});

describe.each(engines)('an `idp worker` started before any `idp serve` made the key an application asks for (%s)', (engine) => {
  test('it says which key is missing, and signs once a serve has created it', async () => {
    const db = await openTestDatabase(engine);
    try {
      const settings = await testSettings({
        applications: [
          {
            slug: 'es',
            name: 'ES',
            client_id: 'es',
            client_secret: 'es-secret-0123456789',
            redirect_uris: [CALLBACK],
            id_token_signed_response_alg: 'ES256',
          },
        ],
      });
      // The keys of a release, or a configuration, from before the application asked for ES256.
      await ensureSigningKeys(db.store, settings.secrets.key, ['RS256']);
      const sign = workerLogoutSigner(settings, db.store, createLogger('silent'));
      await expect(sign('es', 'user-1')).rejects.toThrow('no ES256 signing key for application "es" yet: `idp serve` creates it at start');

      await ensureSigningKeys(db.store, settings.secrets.key, signingAlgsOf(settings.applications));
      expect(jose.decodeProtectedHeader(await sign('es', 'user-1')).alg).toBe('ES256');
    } finally {
      await db.close();
    }
  });
});
