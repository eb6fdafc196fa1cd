/** Signing keys: encrypted at rest, generated once, rotated with the old key still published. */
import * as jose from 'jose';
import {
  decryptJwk,
  encryptJwk,
  ensureSigningKey,
  generateSigningJwk,
  loadSigningKeys,
  rotateSigningKey,
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
});

describe.each(engines)('signing keys in the store (%s)', (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(engine);
  });
  afterAll(async () => db?.close());

  test('generated once; rotation makes a new active key and keeps the old one', async () => {
    await ensureSigningKey(db.store, SECRET);
    await ensureSigningKey(db.store, SECRET);
    const [first] = await loadSigningKeys(db.store, SECRET);
    expect(await loadSigningKeys(db.store, SECRET)).toHaveLength(1);
    const kid = await rotateSigningKey(db.store, SECRET);
    const keys = await loadSigningKeys(db.store, SECRET);
    expect(keys.map((key) => key.kid)).toEqual([kid, first!.kid]);
    const rows = await db.store.signingKeys.list();
    expect(rows.map((row) => row.state)).toEqual(['active', 'retired']);
    expect(rows[0]!.encrypted_jwk).not.toContain('"d"');
  });
});

describe.each(engines)('key rotation seen by a relying party (%s)', (engine) => {
  test('after rotation and restart, new tokens carry the new kid and the JWKS publishes both keys', async () => {
    const idp = await startOidcServer(engine, 'http://127.0.0.1:1/cb', [{ slug: 'wiki' }]);
    try {
      const before = await (await fetch(`${idp.url}/application/o/wiki/jwks/`)).json();
      const kid = await rotateSigningKey(idp.store, idp.settings.secrets.key);
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
