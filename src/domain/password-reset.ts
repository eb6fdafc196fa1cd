/**
 * "Forgot your password?": the password-setup code of password-setup.ts, for anyone who asks, without telling
 * whether the address has an account; and what setting a password by mailed code does when it *replaces* one
 * (a reset): every session, grant and token of the user ends, their applications get a backchannel logout,
 * and the mailbox gets a notice — all in the transaction that changes the password.
 */
import type { Store, UserRow } from '../store/contract.js';
import type { PasswordPolicy } from './passwords.js';
import { completePasswordSetup, drawSetupCode, sendSetupCode } from './password-setup.js';
import { passwordChangedMessage, resetCodeMessage, type SendMail } from './mail.js';
import { signOutEverywhere } from './logout.js';

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
  input: { interactionUid: string; user: UserRow | undefined; appName: string; key: string; now?: Date },
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
  });
}

/**
 * Sets the password of the user whose mailed code was just spent (setup page or reset page alike) and marks
 * the e-mail verified. When the user had a password, this is a reset: inside the same transaction every other
 * session and refresh token of theirs ends (backchannel logouts queued) and the "password changed" notice is
 * queued, last, so a queue that refuses it undoes the change: a password never changes without the notice.
 * `replaced` says whether that happened (the caller's browser session may have ended with the others).
 */
export async function setPasswordFromCode(
  store: Store,
  sendMail: SendMail,
  input: { userId: number; password: string; policy: PasswordPolicy; appName: string; now?: Date },
): Promise<{ user: UserRow; replaced: boolean }> {
  const { userId, password, policy } = input;
  const replaced = Boolean(await store.credentials.passwordHash(userId));
  if (!replaced) return { user: await completePasswordSetup(store, userId, password, policy), replaced };
  const user = await completePasswordSetup(store, userId, password, policy, {
    details: { replaced: true, sessions_ended: true, notice: true },
    async inTransaction(tx, changed) {
      await signOutEverywhere(tx, changed.uuid);
      await sendMail(passwordChangedMessage(changed.email, changed.uuid, input.appName, input.now ?? new Date()));
    },
  });
  return { user, replaced };
}
