/**
 * ID-token signing keys: RSA 2048, generated on first start, stored encrypted (AES-256-GCM with a key
 * derived from secrets.key) so every replica signs with the same key. Rotation adds a new active key and
 * keeps retired ones published so tokens they signed still verify.
 */
import { createCipheriv, createDecipheriv, createHash, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import type { Store } from '../store/contract.js';

export interface SigningJwk extends JsonWebKey {
  kid: string;
  alg: 'RS256';
  use: 'sig';
}

const encryptionKey = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function encryptJwk(jwk: SigningJwk, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(secret), iv);
  cipher.setAAD(Buffer.from(jwk.kid));
  const body = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export function decryptJwk(kid: string, sealed: string, secret: string): SigningJwk {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !body) throw new Error(`signing key ${kid}: unknown encryption format`);
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(secret), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(kid));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')) as SigningJwk;
  } catch {
    throw new Error(`signing key ${kid} cannot be decrypted: secrets.key differs from the one that stored it`);
  }
}

export function generateSigningJwk(): SigningJwk {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: randomBytes(16).toString('base64url'), alg: 'RS256', use: 'sig' };
}

/** Creates the first key unless one exists (safe when replicas start together). */
export async function ensureSigningKey(store: Store, secret: string): Promise<void> {
  if ((await store.signingKeys.list()).length) return;
  const jwk = generateSigningJwk();
  await store.signingKeys.insertFirst({ kid: jwk.kid, encrypted_jwk: encryptJwk(jwk, secret) });
}

/** Makes a new key active; the previous one stays published. Returns the new kid. */
export async function rotateSigningKey(store: Store, secret: string, now = new Date()): Promise<string> {
  const jwk = generateSigningJwk();
  await store.signingKeys.activate({ kid: jwk.kid, encrypted_jwk: encryptJwk(jwk, secret) }, now);
  return jwk.kid;
}

/** Private JWKs, active first: the engine signs with the first and publishes all of them. */
export async function loadSigningKeys(store: Store, secret: string): Promise<SigningJwk[]> {
  const rows = await store.signingKeys.list();
  return rows.map((row) => decryptJwk(row.kid, row.encrypted_jwk, secret));
}
