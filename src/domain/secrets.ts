/**
 * Everything derived from `secrets.key`, in one place. Each purpose gets its own 32-byte key (HKDF-SHA256,
 * RFC 5869), so a key used to encrypt is never the key used to hash or sign. Three uses:
 * - `seal`/`unseal`: AES-256-GCM with the owner bound as AAD (signing keys, TOTP secrets);
 * - `hash`: a keyed hash of a short code or token (setup codes, e-mail codes, recovery codes, recovery links), so a copy
 *   of the database alone does not let anyone brute-force 6-digit codes offline;
 * - `mac`: an HMAC tag (tickets, CSRF tokens) and `signingKeys` for cookies.
 * `source-flow` seals the cookies of a sign-in through an upstream identity provider (src/sources/flow-cookies.ts).
 *
 * Data written before this module (format v1: one SHA-256 of secrets.key for both encryption and hashing)
 * stays readable: `unseal` reads v1, `hashes` also yields the v1 hash, and the v1 cookie key still verifies.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export type SecretPurpose =
  | 'signing-key'
  | 'totp'
  | 'setup-code'
  | 'email-code'
  | 'recovery-code'
  | 'recovery-link'
  | 'invitation'
  | 'ticket'
  | 'csrf'
  | 'cookie'
  | 'source-flow'
  | 'registration-code'
  | 'registration';

/** Legacy (v1) hash purposes, as they were spelled: kept only to read what v1 stored. */
const V1_HASH_PURPOSE: Partial<Record<SecretPurpose, string>> = {
  'setup-code': 'setup',
  'recovery-code': 'recovery',
  'recovery-link': 'recovery-link',
};

export interface Secrets {
  /** `v2.<iv>.<tag>.<ciphertext>` (base64url parts); `aad` binds it to its owner (a row copied elsewhere does not open). */
  seal(purpose: SecretPurpose, plaintext: string, aad: string): string;
  /** Opens v2 and v1 values; throws a readable error when secrets.key is not the one that sealed it. */
  unseal(purpose: SecretPurpose, sealed: string, aad: string): string;
  /** The keyed hash to store for `value`. */
  hash(purpose: SecretPurpose, value: string): string;
  /** Every hash a stored value may have: the current one first, then the v1 one (data from before v2). */
  hashes(purpose: SecretPurpose, value: string): string[];
  /** An HMAC tag (base64url) over `value`. */
  mac(purpose: SecretPurpose, value: string): string;
  /** Constant-time comparison of two tags or hashes. */
  equal(given: unknown, expected: string): boolean;
  /** Cookie signing keys: the current one signs, the v1 one still verifies cookies issued before. */
  cookieKeys(): string[];
}

const cache = new Map<string, Secrets>();

export function secretsFrom(secretKey: string): Secrets {
  let secrets = cache.get(secretKey);
  if (!secrets) cache.set(secretKey, (secrets = build(secretKey)));
  return secrets;
}

function build(secretKey: string): Secrets {
  const keys = new Map<SecretPurpose, Buffer>();
  const keyFor = (purpose: SecretPurpose) => {
    let key = keys.get(purpose);
    if (!key) keys.set(purpose, (key = Buffer.from(hkdfSync('sha256', secretKey, 'identity-service', `idp ${purpose} v2`, 32))));
    return key;
  };
  const v1Key = createHash('sha256').update(secretKey, 'utf8').digest();

  const open = (key: Buffer, iv: string, tag: string, body: string, aad: string) => {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  };
  const hashWith = (key: Buffer, input: string) => createHmac('sha256', key).update(input).digest('base64url');

  const secrets: Secrets = {
    seal(purpose, plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(purpose), iv);
      cipher.setAAD(Buffer.from(aad));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v2', iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    unseal(purpose, sealed, aad) {
      const [version, iv, tag, body] = sealed.split('.');
      if (!['v1', 'v2'].includes(version!) || !iv || !tag || body === undefined) throw new Error('sealed value: unknown encryption format');
      try {
        return open(version === 'v2' ? keyFor(purpose) : v1Key, iv, tag, body, aad);
      } catch {
        throw new Error('sealed value cannot be decrypted: secrets.key differs from the one that stored it');
      }
    },
    hash: (purpose, value) => hashWith(keyFor(purpose), value),
    hashes(purpose, value) {
      const v1 = V1_HASH_PURPOSE[purpose];
      return v1 ? [secrets.hash(purpose, value), hashWith(v1Key, `${v1}\0${value}`)] : [secrets.hash(purpose, value)];
    },
    mac: (purpose, value) => hashWith(keyFor(purpose), value),
    equal(given, expected) {
      if (typeof given !== 'string') return false;
      const [a, b] = [Buffer.from(given), Buffer.from(expected)];
      return a.length === b.length && timingSafeEqual(a, b);
    },
    cookieKeys: () => [
      keyFor('cookie').toString('base64url'),
      createHmac('sha256', secretKey).update('idp cookie signing key v1').digest('base64url'),
    ],
  };
  return secrets;
}
