/**
 * TOTP second factor (RFC 6238: SHA-1, 6 digits, 30-second steps, ±1 step of clock drift). A code is
 * accepted once: the store keeps the last used step and only moves it forward (compare-and-set).
 */
import speakeasy from 'speakeasy';
import type { Store, UserRow } from '../store/contract.js';
import { secretsFrom } from './secrets.js';
import { audit, currentActor } from './audit.js';

export const TOTP_STEP_SECONDS = 30;
const WINDOW = 1;
const aad = (userId: number) => `totp:${userId}`;

export type TotpOutcome = 'ok' | 'wrong' | 'replayed';

/** The time step whose code is `code`, within ±1 step of `now`; undefined when no step matches. */
export function matchingStep(secret: string, code: string, now: Date): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const time = Math.floor(now.getTime() / 1000);
  const match = speakeasy.totp.verifyDelta({ secret, encoding: 'base32', token: code, window: WINDOW, step: TOTP_STEP_SECONDS, time });
  return match ? Math.floor(time / TOTP_STEP_SECONDS) + match.delta : undefined;
}

export function otpauthUrl(secret: string, account: string, issuer: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=6&period=${TOTP_STEP_SECONDS}`;
}

/** True when the user has a confirmed TOTP secret (then every sign-in asks for a second factor). */
export async function hasTotp(store: Store, userId: number): Promise<boolean> {
  return Boolean((await store.mfa.findTotp(userId))?.confirmed_at);
}

/**
 * The pending secret of an enrolment in progress, or a new one. Undefined when the user meanwhile confirmed
 * a secret elsewhere (then the caller asks for a code instead).
 */
export async function pendingTotpSecret(store: Store, user: UserRow, key: string, fresh: boolean): Promise<string | undefined> {
  const current = await store.mfa.findTotp(user.id);
  if (current?.confirmed_at) return undefined;
  if (current && !fresh) return secretsFrom(key).unseal('totp', current.encrypted_secret, aad(user.id));
  const secret = speakeasy.generateSecret({ length: 20 }).base32;
  return (await store.mfa.savePendingTotp(user.id, secretsFrom(key).seal('totp', secret, aad(user.id)))) ? secret : undefined;
}

/** Confirms a pending secret with its first code; the step is spent at once. */
export async function confirmTotp(store: Store, userId: number, code: string, key: string, now = new Date()): Promise<TotpOutcome> {
  const pending = await store.mfa.findTotp(userId);
  if (!pending || pending.confirmed_at) return 'wrong';
  const step = matchingStep(secretsFrom(key).unseal('totp', pending.encrypted_secret, aad(userId)), code, now);
  if (step === undefined) return 'wrong';
  return (await store.mfa.useTotpStep(userId, step, true, now)) ? 'ok' : 'replayed';
}

/** Checks a code against the confirmed secret and spends its time step. */
export async function verifyTotp(store: Store, userId: number, code: string, key: string, now = new Date()): Promise<TotpOutcome> {
  const credential = await store.mfa.findTotp(userId);
  if (!credential?.confirmed_at) return 'wrong';
  const step = matchingStep(secretsFrom(key).unseal('totp', credential.encrypted_secret, aad(userId)), code, now);
  if (step === undefined) return 'wrong';
  return (await store.mfa.useTotpStep(userId, step, false, now)) ? 'ok' : 'replayed';
}

/** Enrolment: confirms the pending secret with its first code; the trail records it in the same transaction. */
export async function enrolTotp(
  store: Store,
  user: { id: number; uuid: string },
  code: string,
  key: string,
  app?: string,
): Promise<TotpOutcome> {
  return store.transaction(async (tx) => {
    const outcome = await confirmTotp(tx, user.id, code, key);
    if (outcome === 'ok')
      await audit(tx, 'mfa.enrolled', { user: user.uuid, app, actor: { ...currentActor(), type: 'user', id: user.uuid } });
    return outcome;
  });
}
