/** Signing keys: encrypted at rest, generated once per algorithm in use, rotated together with the old keys still published. */
import * as jose from 'jose';
import {
  decryptJwk,
  encryptJwk,
  ensureSigningKeys,
  generateSigningJwk,
  loadSigningKeys,
  rotateSigningKeys,
} from '../../src/domain/signing-keys.js';
import { startService } from '../../src/service.js';
import { createLogger } from '../../src/observability/logger.js';
import { engines, openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startOidcServer } from '../helpers/oidc-server.js';

const SECRET = 's'.repeat(64);

describe('signing key encryption', () => {
  test('AES-256-GCM round trip; another secret or a swapped kid cannot decrypt', () => {
    const jwk = generateSigningJwk();
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String), d: expect.any(String) });
    const sealed = encryptJwk(jwk, SECRET);
    expect(sealed).not.toContain(jwk.d!);
    expect(decryptJwk(jwk.kid, sealed, SECRET)).toEqual(jwk);
    expect(() => decryptJwk(jwk.kid, sealed, 't'.repeat(64))).toThrow(/cannot be decrypted/);
    expect(() => decryptJwk('other-kid', sealed, SECRET)).toThrow(/cannot be decrypted/);
  });

  test('ES256 keys are P-256, EdDSA keys Ed25519, each labelled with its algorithm', () => {
    expect(generateSigningJwk('ES256')).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', d: expect.any(String) });
    expect(generateSigningJwk('EdDSA')).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', d: expect.any(String) });
  });
});

describe.each(engines)('signing keys in the store (%s)', (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(engine);
  });
  afterAll(async () => db?.close());

  const actives = async () =>
    (await db.store.signingKeys.list()).filter((row) => row.state === 'active').map((row) => [row.alg, row.kid] as const);

  test('generated once per algorithm asked for; a rotation gives every stored algorithm a new key and keeps the old ones', async () => {
    await ensureSigningKeys(db.store, SECRET, ['RS256']);
    await ensureSigningKeys(db.store, SECRET, ['RS256']);
    const [first] = await loadSigningKeys(db.store, SECRET);
    expect(await loadSigningKeys(db.store, SECRET)).toHaveLength(1);
    // An application asks for EdDSA: its key joins, RS256's stays.
    await ensureSigningKeys(db.store, SECRET, ['RS256', 'EdDSA']);
    expect((await actives()).map(([alg]) => alg)).toEqual(['RS256', 'EdDSA']);
    const [, ed] = await actives();

    // Stored algorithms rotate even when no longer asked for (their tokens may still be in use); asked ones join.
    const rotated = await rotateSigningKeys(db.store, SECRET, ['RS256', 'ES256']);
    expect(rotated.map((key) => key.alg)).toEqual(['RS256', 'ES256', 'EdDSA']);
    expect(await actives()).toEqual(rotated.map((key) => [key.alg, key.kid]));
    const keys = await loadSigningKeys(db.store, SECRET);
    expect(keys.map((key) => key.kid)).toEqual([...rotated.map((key) => key.kid), first!.kid, ed![1]]);
    expect(keys.map((key) => key.alg)).toEqual(['RS256', 'ES256', 'EdDSA', 'RS256', 'EdDSA']);
    const rows = await db.store.signingKeys.list();
    expect(rows.map((row) => row.state)).toEqual(['active', 'active', 'active', 'retired', 'retired']);
    for (const row of rows) expect(row.encrypted_jwk).not.toContain('"d"');
  });
});

describe.each(engines)('key rotation seen by a relying party (%s)', (engine) => {
  test('after rotation and restart, new tokens carry the new kid and the JWKS publishes both keys', async () => {
    const idp = await startOidcServer(engine, 'http://127.0.0.1:1/cb', [{ slug: 'wiki' }]);
    try {
      const before = await (await fetch(`${idp.url}/application/o/wiki/jwks/`)).json();
      const kid = (await rotateSigningKeys(idp.store, idp.settings.secrets.key, ['RS256']))[0]!.kid;
      // A restart (a second service on the same database) builds its providers from the store.
      const restarted = await startService(idp.settings, {
        store: idp.store,
        logger: createLogger('silent'),
        redis: false,
        workers: false,
      });
      let jwks: jose.JSONWebKeySet;
      let provider;
      try {
        jwks = (await (await fetch(`${restarted.url}/application/o/wiki/jwks/`)).json()) as jose.JSONWebKeySet;
        provider = restarted.providers.bySlug.get('wiki')!.provider;
      } finally {
        await restarted.close();
      }
      expect(jwks.keys.map((key) => key.kid)).toEqual([kid, before.keys[0].kid]);
      // Tokens are signed with the first (active) key.
      const token = await new provider.IdToken({ sub: 'someone' }, { client: await provider.Client.find(idp.apps.wiki!.client_id) }).issue({
        use: 'idtoken',
      });
      expect(jose.decodeProtectedHeader(token as string).kid).toBe(kid);
    } finally {
      await idp.close();
    }
  });
});
