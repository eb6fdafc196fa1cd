/**
 * ID-token signing keys, one active key per algorithm (RS256 always; ES256 and EdDSA once an application asks for
 * them), generated at start, stored encrypted (AES-256-GCM with a key derived from secrets.key,
 * src/domain/secrets.ts) so every replica signs with the same keys. A rotation gives every stored algorithm a new
 * active key and keeps the retired ones published so tokens they signed still verify; running processes notice the
 * new kids within keys.reload_seconds and switch to them (src/oidc/signing-key-watch.ts, reload-keys.ts).
 */
import { generateKeyPairSync, randomBytes, type JsonWebKey, type KeyPairKeyObjectResult } from 'node:crypto';
import { secretsFrom } from './secrets.js';
import { DEFAULT_SIGNING_ALG, SIGNING_ALGS, type SigningAlg } from '../settings/signing-algorithms.js';
import type { ApplicationSettings } from '../settings/schema.js';
import type { NewSigningKey, Store } from '../store/contract.js';

export interface SigningJwk extends JsonWebKey {
  kid: string;
  alg: SigningAlg;
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

/** RSA 2048 (about 0.1–0.3 s), P-256 and Ed25519 (well under a millisecond). */
const keyPair: Record<SigningAlg, () => KeyPairKeyObjectResult> = {
  RS256: () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
  ES256: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  EdDSA: () => generateKeyPairSync('ed25519'),
};

export function generateSigningJwk(alg: SigningAlg = DEFAULT_SIGNING_ALG): SigningJwk {
  const jwk = keyPair[alg]().privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: randomBytes(16).toString('base64url'), alg, use: 'sig' };
}

const sealedKey = (alg: SigningAlg, secret: string): NewSigningKey => {
  const jwk = generateSigningJwk(alg);
  return { kid: jwk.kid, alg, encrypted_jwk: encryptJwk(jwk, secret) };
};

/** The algorithms the configured applications sign with, RS256 always (the account page and the default). */
export function signingAlgsOf(applications: ApplicationSettings[]): SigningAlg[] {
  const asked = new Set<SigningAlg>([DEFAULT_SIGNING_ALG, ...applications.map((app) => app.id_token_signed_response_alg)]);
  return SIGNING_ALGS.filter((alg) => asked.has(alg));
}

/** Creates an active key for each of `algs` that has none (safe when replicas start together). */
export async function ensureSigningKeys(store: Store, secret: string, algs: readonly SigningAlg[]): Promise<void> {
  const active = new Set((await store.signingKeys.list()).filter((row) => row.state === 'active').map((row) => row.alg));
  for (const alg of algs) if (!active.has(alg)) await store.signingKeys.insertFirst(sealedKey(alg, secret));
}

/**
 * Gives a new active key to every algorithm stored and every one of `algs`, in one transaction; the previous keys
 * stay published. Returns the new keys' ids, RS256 first.
 */
export async function rotateSigningKeys(
  store: Store,
  secret: string,
  algs: readonly SigningAlg[],
  now = new Date(),
): Promise<Array<{ alg: SigningAlg; kid: string }>> {
  const stored = new Set<SigningAlg>([...algs, ...(await store.signingKeys.list()).map((row) => row.alg)]);
  const keys = SIGNING_ALGS.filter((alg) => stored.has(alg)).map((alg) => sealedKey(alg, secret));
  await store.signingKeys.activate(keys, now);
  return keys.map(({ alg, kid }) => ({ alg, kid }));
}

/** Private JWKs in the store's order (active keys first): the engine signs with the first of the client's algorithm and publishes all. */
export async function loadSigningKeys(store: Store, secret: string): Promise<SigningJwk[]> {
  const rows = await store.signingKeys.list();
  return rows.map((row) => decryptJwk(row.kid, row.encrypted_jwk, secret));
}
