/**
 * Password hashing (bcrypt) and policy. bcrypt reads at most 72 bytes: longer passwords are pre-hashed with
 * SHA-256 (base64, 44 bytes) so every byte counts instead of being silently truncated.
 */
import { text, type Text } from '../i18n/messages.js';
import { createHash } from 'node:crypto';
import bcrypt from 'bcrypt';
import type { AddressLookup, SignInRecord, Store } from '../store/contract.js';

export interface PasswordPolicy {
  bcrypt_cost: number;
  min_length: number;
  max_length: number;
}

const BCRYPT_MAX_BYTES = 72;

function bcryptInput(password: string): string {
  return Buffer.byteLength(password, 'utf8') > BCRYPT_MAX_BYTES ? createHash('sha256').update(password, 'utf8').digest('base64') : password;
}

export const hashPassword = (password: string, cost: number) => bcrypt.hash(bcryptInput(password), cost);

export const verifyPassword = (password: string, hash: string) => bcrypt.compare(bcryptInput(password), hash);

/**
 * A valid hash of a random password, computed once per cost: unknown e-mails and users without a
 * password are verified against it so their answer takes as long as a real one.
 */
const dummyHashes = new Map<number, Promise<string>>();
export function dummyHash(cost: number): Promise<string> {
  let hash = dummyHashes.get(cost);
  if (!hash) dummyHashes.set(cost, (hash = bcrypt.hash(`dummy-${Math.random()}`, cost)));
  return hash;
}

/**
 * The policy's complaints about `password` (empty when it is acceptable), as catalogue messages (locales/…/
 * passwords.json): pages show them in the reader's language, the API in English (`inEnglish`).
 */
export function policyProblems(password: string, email: string, policy: PasswordPolicy): Text[] {
  const problems: Text[] = [];
  const length = [...password].length;
  if (length < policy.min_length) problems.push(text('password.too_short', { min: policy.min_length }));
  if (length > policy.max_length) problems.push(text('password.too_long', { max: policy.max_length }));
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) problems.push(text('password.is_email'));
  return problems;
}

/** Whether the user has a password (users without one set it up by mailed code first). */
export const hasPassword = async (store: Store, userId: number) => Boolean(await store.credentials.passwordHash(userId));

/**
 * The user behind a typed e-mail address as the sign-in pages need them (their hash, their second factors), and
 * the address as the database compared it (the key of its rate limits when nobody has it), in one read.
 */
export const lookUpAddress = async (store: Store, email: string): Promise<AddressLookup> =>
  email.trim() ? store.credentials.lookUpAddress(email.trim()) : { comparable: '' };

/**
 * The active user of `record` when `password` is theirs, with their second factors; else undefined. An unknown
 * address (no record) and a user without a password are checked against a dummy hash, so the answer takes as
 * long and says nothing more.
 */
export async function checkCredentials(
  record: SignInRecord | undefined,
  password: string,
  cost: number,
): Promise<Omit<SignInRecord, 'passwordHash'> | undefined> {
  const hash = record?.passwordHash;
  const matches = await verifyPassword(password, hash ?? (await dummyHash(cost)));
  return matches && hash && record.user.is_active ? { user: record.user, secondFactors: record.secondFactors } : undefined;
}
