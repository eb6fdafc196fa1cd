/**
 * Secrets stored encrypted at rest (TOTP secrets): AES-256-GCM with a key derived from secrets.key, in the
 * same `v1.<iv>.<tag>.<ciphertext>` format as the signing keys. The AAD binds a sealed value to its owner,
 * so a ciphertext copied onto another row does not decrypt.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

const encryptionKey = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();

export function seal(plaintext: string, aad: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(secret), iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

export function unseal(sealed: string, aad: string, secret: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !body) throw new Error('sealed value: unknown encryption format');
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(secret), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('sealed value cannot be decrypted: secrets.key differs from the one that stored it');
  }
}

/**
 * Keyed hash of a short code or token (setup codes, recovery codes, recovery links). Keyed with secrets.key
 * so a copy of the database alone does not let anyone brute-force 6-digit codes offline.
 */
export function hashCode(secret: string, purpose: string, value: string): string {
  return createHmac('sha256', encryptionKey(secret)).update(`${purpose}\0${value}`).digest('base64url');
}
