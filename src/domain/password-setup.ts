/**
 * Password setup for users without a password (spec §1): a 6-digit code mailed to them, valid 10 minutes
 * and 5 tries, stored as a keyed hash; and admin recovery links (24 h, single use). Both end by setting the
 * password under the policy and marking the e-mail verified (receiving the code or link proves it), by the rule
 * of every credential change (credential-changes.ts).
 */
import { inEnglish, text, type Text } from '../i18n/messages.js';
import { randomBytes, randomInt } from 'node:crypto';
import type { Store, UserRow } from '../store/contract.js';
import type { PasswordPolicy } from './passwords.js';
import { policyProblems } from './passwords.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { secretsFrom } from './secrets.js';
import { setupCodeMessage, type SendMail } from './mail.js';
import { audit } from './audit.js';
import { changeCredentials } from './credential-changes.js';

export const SETUP_CODE_MINUTES = 10;
export const SETUP_CODE_TRIES = 5;
export const RECOVERY_LINK_HOURS = 24;

/** A fresh 6-digit code and the keyed hash the store keeps of it. */
export function drawSetupCode(key: string): { code: string; hash: string } {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  return { code, hash: secretsFrom(key).hash('setup-code', code) };
}

/**
 * Creates (or replaces) the code of this sign-in and queues the mail: the setup mail, or the one `message`
 * words (a password reset, password-reset.ts). `drawn` is a code drawn beforehand.
 */
export async function sendSetupCode(
  store: Store,
  sendMail: SendMail,
  input: {
    id: string;
    user: UserRow;
    appName: string;
    key: string;
    now?: Date;
    drawn?: { code: string; hash: string };
    message?: typeof setupCodeMessage;
    /** The language of the page the person asked on (the mail's). */
    locale?: string;
  },
): Promise<void> {
  const now = input.now ?? new Date();
  const { code, hash } = input.drawn ?? drawSetupCode(input.key);
  await store.passwordSetup.saveCode({
    id: input.id,
    user_id: input.user.id,
    code_hash: hash,
    expires_at: new Date(now.getTime() + SETUP_CODE_MINUTES * 60_000),
  });
  const message = input.message ?? setupCodeMessage;
  await sendMail(message(input.user.email, input.user.uuid, input.appName, code, SETUP_CODE_MINUTES, input.locale));
}

/** The user whose setup code of sign-in `id` is still unused; undefined once it is spent or gone. */
export async function userOfSetupCode(store: Store, id: string): Promise<UserRow | undefined> {
  const pending = await store.passwordSetup.findCode(id);
  return pending && !pending.used_at ? store.users.findById(pending.user_id) : undefined;
}

export type SetupCodeCheck =
  | { ok: true; userId: number }
  | { ok: false; reason: 'wrong'; triesLeft: number }
  | { ok: false; reason: 'expired' | 'exhausted' | 'missing' };

/** Counts a try against the code of `id` and spends the code when it matches. */
export async function checkSetupCode(store: Store, id: string, code: string, key: string, now = new Date()): Promise<SetupCodeCheck> {
  const row = await store.passwordSetup.countAttempt(id, SETUP_CODE_TRIES, now);
  if (!row) {
    const current = await store.passwordSetup.findCode(id);
    if (!current || current.used_at) return { ok: false, reason: 'missing' };
    return { ok: false, reason: current.expires_at <= now ? 'expired' : 'exhausted' };
  }
  const secrets = secretsFrom(key);
  if (!secrets.hashes('setup-code', code.trim()).some((hash) => secrets.equal(hash, row.code_hash))) {
    const triesLeft = SETUP_CODE_TRIES - row.attempts - 1;
    return triesLeft > 0 ? { ok: false, reason: 'wrong', triesLeft } : { ok: false, reason: 'exhausted' };
  }
  return (await store.passwordSetup.consumeCode(id, now)) ? { ok: true, userId: row.user_id } : { ok: false, reason: 'missing' };
}

/** The policy's and the confirmation's complaints about a new password. */
export function newPasswordProblems(password: string, confirmation: string, email: string, policy: PasswordPolicy): Text[] {
  const problems = policyProblems(password, email, policy);
  if (password !== confirmation) problems.push(text('password.differ'));
  return problems;
}

/** Admin: a one-time link to the setup page, valid 24 hours. */
export async function createRecoveryLink(store: Store, baseUrl: string, userId: number, key: string, now = new Date()): Promise<string> {
  const user = await store.users.findById(userId);
  if (!user) throw new NotFoundError('user');
  const token = randomBytes(32).toString('base64url');
  await store.transaction(async (tx) => {
    await tx.passwordSetup.saveLink({
      token_hash: secretsFrom(key).hash('recovery-link', token),
      user_id: userId,
      expires_at: new Date(now.getTime() + RECOVERY_LINK_HOURS * 3_600_000),
    });
    await audit(tx, 'password.recovery_link_created', { user: user.uuid });
  });
  return `${baseUrl.replace(/\/$/, '')}/if/recovery/${token}/`;
}

/** Links to the password page: an administrator's recovery link, or an invitation (invitations.ts). */
export type LinkPurpose = 'recovery-link' | 'invitation';

/** What a person types on the page a link leads to. */
export interface LinkRedemption {
  token: string;
  password: string;
  confirmation: string;
  key: string;
  policy: PasswordPolicy;
  now?: Date;
  /** The language of the page the link opened (the notice's). */
  locale?: string;
}

/** The user a live link of this purpose belongs to, active or not. */
export async function userOfLink(
  store: Store,
  purpose: LinkPurpose,
  token: string,
  key: string,
  now = new Date(),
): Promise<UserRow | undefined> {
  for (const hash of secretsFrom(key).hashes(purpose, token)) {
    const userId = await store.passwordSetup.findLink(hash, now);
    if (userId !== undefined) return store.users.findById(userId);
  }
  return undefined;
}

/**
 * Spends the link and sets the password (credential-changes.ts: sessions end, a notice is mailed), together:
 * ValidationError for a bad password, and a refused notice, leave the link live. Undefined when the link is no
 * longer live (used meanwhile, expired, or withdrawn).
 */
export async function redeemLink(
  store: Store,
  sendMail: SendMail,
  purpose: LinkPurpose,
  input: LinkRedemption,
): Promise<UserRow | undefined> {
  const { token, key, now = new Date() } = input;
  const user = await userOfLink(store, purpose, token, key, now);
  if (!user) return undefined;
  const problems = newPasswordProblems(input.password, input.confirmation, user.email, input.policy);
  if (problems.length) throw new ValidationError({ password: problems.map(inEnglish) });
  const changed = await changeCredentials(store, sendMail, {
    userId: user.id,
    change: { password: input.password, policy: input.policy, verifiesEmail: true },
    by: { kind: purpose === 'invitation' ? 'invitation' : 'recovery_link' },
    async spend(tx) {
      for (const hash of secretsFrom(key).hashes(purpose, token)) {
        if ((await tx.passwordSetup.consumeLink(hash, now)) === user.id) return true;
      }
      return false;
    },
    now,
    locale: input.locale,
  });
  return changed?.user;
}
