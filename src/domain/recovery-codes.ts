/**
 * Recovery codes: ten single-use codes shown once after enrolment, stored as keyed hashes. Each may stand in
 * for a TOTP code; consuming one is a compare-and-set, so a code never works twice.
 */
import { randomInt } from 'node:crypto';
import type { Store } from '../store/contract.js';
import { secretsFrom } from './secrets.js';

export const RECOVERY_CODE_COUNT = 10;
// No 0/O, 1/I/L: codes are read off paper.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

const normalise = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

function newCode(): string {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** Replaces the user's codes; returns the new ones in clear (the only time they exist in clear). */
export async function issueRecoveryCodes(store: Store, userId: number, key: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  const secrets = secretsFrom(key);
  await store.mfa.replaceRecoveryCodes(
    userId,
    codes.map((code) => secrets.hash('recovery-code', normalise(code))),
  );
  return codes;
}

/** True when `code` is one of the user's unused codes; it is spent by this call. */
export async function useRecoveryCode(store: Store, userId: number, code: string, key: string, now = new Date()): Promise<boolean> {
  const value = normalise(code);
  if (value.length !== 10) return false;
  // Codes issued before the v2 secrets are stored under their v1 hash.
  for (const hash of secretsFrom(key).hashes('recovery-code', value)) {
    if (await store.mfa.consumeRecoveryCode(userId, hash, now)) return true;
  }
  return false;
}
