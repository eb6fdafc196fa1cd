/**
 * "Forgot your password?": the password-setup code of password-setup.ts, for anyone who asks, without telling
 * whether the address has an account; and setting a password by mailed code, which follows the rule of every
 * credential change (credential-changes.ts): every session, grant and token of the user ends, their
 * applications get a backchannel logout, and the mailbox gets a notice — all in one transaction.
 */
import type { Store, UserRow } from '../store/contract.js';
import type { PasswordPolicy } from './passwords.js';
import { drawSetupCode, sendSetupCode } from './password-setup.js';
import { resetCodeMessage, type SendMail } from './mail.js';
import { changeCredentials, type ChangedCredentials } from './credential-changes.js';

/**
 * The reset code of a sign-in is kept apart from its setup code (same table, own id): the setup page must
 * never find it, or its answer ("N tries left" or "expired") would tell whether the address has an account.
 */
export const resetCodeId = (interactionUid: string) => `reset:${interactionUid}`;

/**
 * Mails a reset code to an active account; for an unknown or inactive address mails nothing. Both draw and
 * hash a code and write one row of this sign-in, so the answer takes about as long; the rest of the
 * difference is queueing the mail (one Redis round trip).
 */
export async function sendResetCode(
  store: Store,
  sendMail: SendMail,
  input: { interactionUid: string; user: UserRow | undefined; appName: string; key: string; now?: Date; locale?: string },
): Promise<void> {
  const now = input.now ?? new Date();
  const id = resetCodeId(input.interactionUid);
  const drawn = drawSetupCode(input.key);
  if (!input.user?.is_active) {
    // Spends a code mailed earlier in this sign-in (to another address), so it cannot be used on this page.
    await store.passwordSetup.consumeCode(id, now);
    return;
  }
  await sendSetupCode(store, sendMail, {
    id,
    user: input.user,
    appName: input.appName,
    key: input.key,
    now,
    drawn,
    message: resetCodeMessage,
    locale: input.locale,
  });
}

/**
 * Sets the password of the user whose mailed code was just spent (setup page or reset page alike) and marks
 * the e-mail verified, by the rule of every credential change (credential-changes.ts): every session of the
 * user ends (the browser's own too, when it was signed in as them: the sign-in finishes in a fresh one),
 * backchannel logouts are queued and a notice is queued last, so a queue that refuses it undoes the change.
 * `replaced` says whether the user had a password before (a reset).
 */
export async function setPasswordFromCode(
  store: Store,
  sendMail: SendMail,
  input: { userId: number; password: string; policy: PasswordPolicy; appName: string; now?: Date; locale?: string },
): Promise<ChangedCredentials> {
  const changed = await changeCredentials(store, sendMail, {
    userId: input.userId,
    change: { password: input.password, policy: input.policy, verifiesEmail: true },
    by: { kind: 'code', appName: input.appName },
    now: input.now,
    locale: input.locale,
  });
  return changed!; // a new password without a `spend` always lands
}
