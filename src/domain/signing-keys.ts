/**
 * ID-token signing keys: RSA 2048, generated on first start, stored encrypted (AES-256-GCM with a key
 * derived from secrets.key, src/domain/secrets.ts) so every replica signs with the same key. Rotation adds a new active key and
 * keeps retired ones published so tokens they signed still verify; running processes notice the new kid within
 * keys.reload_seconds and switch to it (src/oidc/signing-key-watch.ts, reload-keys.ts).
 */
import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { secretsFrom } from './secrets.js';
import type { Store } from '../store/contract.js';

export interface SigningJwk extends JsonWebKey {
  kid: string;
  alg: 'RS256';
  use: 'sig';
}

/** Sealed with the signing-key purpose of secrets.key, bound to its kid (src/domain/secrets.ts). */
export const encryptJwk = (jwk: SigningJwk, secret: string): string =>
  secretsFrom(secret).seal('signing-key', JSON.stringify(jwk), jwk.kid);

export function decryptJwk(kid: string, sealed: string, secret: string): SigningJwk {
  try {
    return JSON.parse(secretsFrom(secret).unseal('signing-key', sealed, kid)) as SigningJwk;
  } catch (error) {
    throw new Error(`signing key ${kid}: ${(error as Error).message}`);
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
