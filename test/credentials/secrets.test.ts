/**
 * The secrets module: a key per purpose (HKDF), AES-256-GCM sealing bound to its owner, keyed hashes — and
 * everything written by the v1 scheme (one SHA-256 of secrets.key for both encryption and hashing) still reads.
 */
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { secretsFrom } from '../../src/domain/secrets.js';
import { decryptJwk, generateSigningJwk } from '../../src/domain/signing-keys.js';
import { useRecoveryCode } from '../../src/domain/recovery-codes.js';
import { verifyTotp } from '../../src/domain/totp.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { totpCode } from '../helpers/totp.js';

const KEY = 'k'.repeat(64);

/** What v1 wrote: AES-256-GCM under sha256(secrets.key). */
function sealV1(plaintext: string, aad: string, secret = KEY): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(secret).digest(), iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}
const hashV1 = (purpose: string, value: string) =>
  createHmac('sha256', createHash('sha256').update(KEY).digest()).update(`${purpose}\0${value}`).digest('base64url');

describe('secrets', () => {
  const secrets = secretsFrom(KEY);

  test('sealing round-trips, is bound to its owner and purpose, and needs the same secrets.key', () => {
    const sealed = secrets.seal('totp', 'JBSWY3DPEHPK3PXP', 'totp:1');
    expect(sealed).toMatch(/^v2\./);
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(secrets.unseal('totp', sealed, 'totp:1')).toBe('JBSWY3DPEHPK3PXP');
    expect(() => secrets.unseal('totp', sealed, 'totp:2')).toThrow(/cannot be decrypted/);
    expect(() => secrets.unseal('signing-key', sealed, 'totp:1')).toThrow(/cannot be decrypted/);
    expect(() => secretsFrom('x'.repeat(64)).unseal('totp', sealed, 'totp:1')).toThrow(/cannot be decrypted/);
    expect(() => secrets.unseal('totp', 'v9.a.b.c', 'totp:1')).toThrow(/unknown encryption format/);
  });

  test('each purpose has its own key: hashes and tags differ across purposes and across secrets', () => {
    const values = new Set([
      secrets.hash('setup-code', '123456'),
      secrets.hash('recovery-code', '123456'),
      secrets.mac('csrf', '123456'),
      secrets.mac('ticket', '123456'),
      secretsFrom('x'.repeat(64)).hash('setup-code', '123456'),
    ]);
    expect(values.size).toBe(5);
    expect(secrets.hash('setup-code', '123456')).toBe(secretsFrom(KEY).hash('setup-code', '123456'));
  });

  test('v1 values stay readable: sealed values, hashes and the cookie key', () => {
    expect(secrets.unseal('totp', sealV1('old secret', 'totp:7'), 'totp:7')).toBe('old secret');
    expect(secrets.hashes('recovery-code', 'abcde12345')).toEqual([
      secrets.hash('recovery-code', 'abcde12345'),
      hashV1('recovery', 'abcde12345'),
    ]);
    expect(secrets.hashes('setup-code', '123456')[1]).toBe(hashV1('setup', '123456'));
    expect(secrets.hashes('recovery-link', 'tok')[1]).toBe(hashV1('recovery-link', 'tok'));
    expect(secrets.cookieKeys()[1]).toBe(createHmac('sha256', KEY).update('idp cookie signing key v1').digest('base64url'));
    const jwk = generateSigningJwk();
    expect(decryptJwk(jwk.kid, sealV1(JSON.stringify(jwk), jwk.kid), KEY)).toEqual(jwk);
  });

  test('equal compares in constant time and refuses non-strings', () => {
    expect(secrets.equal('abc', 'abc')).toBe(true);
    expect(secrets.equal('abd', 'abc')).toBe(false);
    expect(secrets.equal('ab', 'abc')).toBe(false);
    expect(secrets.equal(undefined, 'abc')).toBe(false);
  });
});

describe('credentials stored by v1 still work', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase('pglite');
  });
  afterAll(async () => db?.close());

  test('a v1 recovery code is accepted once; a v1 TOTP secret verifies', async () => {
    const user = await db.store.users.insert({ username: 'old@example.com', email: 'old@example.com', name: 'Old' });
    await db.store.mfa.replaceRecoveryCodes(user.id, [hashV1('recovery', 'abcde12345')]);
    expect(await useRecoveryCode(db.store, user.id, 'ABCDE-12345', KEY)).toBe(true);
    expect(await useRecoveryCode(db.store, user.id, 'ABCDE-12345', KEY)).toBe(false);

    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    await db.store.mfa.savePendingTotp(user.id, sealV1(secret, `totp:${user.id}`));
    await db.store.mfa.useTotpStep(user.id, 1, true, new Date());
    expect(await verifyTotp(db.store, user.id, totpCode(secret), KEY)).toBe('ok');
  });
});
