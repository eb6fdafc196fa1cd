/**
 * A person changing their own e-mail address (the account page, with `account.profile_edits`). The new address
 * must follow the one address rule (email-address.ts, as the API) and belong to nobody; it then waits, and a
 * 6-digit code goes to it (10 minutes, 5 tries, a keyed hash, as the setup codes). Only that code makes the
 * change: the address is replaced and marked verified (receiving the code proves it), applications hear
 * `user_updated`, and the old address gets a notice — in one transaction, the notice queued last.
 */
import { randomInt } from 'node:crypto';
import type { Store, UserRow } from '../store/contract.js';
import { Unavailable, ValidationError } from '../errors.js';
import { isEmailAddress } from './email-address.js';
import { emailChangedMessage, emailCodeMessage, type MailMessage, type SendMail } from './mail.js';
import { secretsFrom } from './secrets.js';
import { updateUser } from './users.js';
import { audit, currentActor } from './audit.js';

export const EMAIL_CODE_MINUTES = 10;
export const EMAIL_CODE_TRIES = 5;

export type EmailChangeRequest = { ok: true; pending: boolean } | { ok: false; problem: 'invalid' | 'taken' };

export type EmailCodeCheck =
  | { ok: true; user: UserRow }
  | { ok: false; reason: 'wrong'; triesLeft: number }
  | { ok: false; reason: 'exhausted' | 'missing' | 'taken' };

/** Queues `message` inside the caller's transaction: a queue that refuses it undoes the transaction. */
async function queueLast(sendMail: SendMail, message: MailMessage): Promise<void> {
  try {
    await sendMail(message);
  } catch (error) {
    throw new Unavailable('The mail queue', error);
  }
}

/**
 * The person asks for `email`. The same address in another case is no new mailbox: saved at once, as the person
 * typed it (`pending: false`). A new address waits for its code (`pending: true`), replacing one that waited;
 * until then the account is unchanged.
 */
export async function requestEmailChange(
  store: Store,
  sendMail: SendMail,
  input: { user: UserRow; email: string; key: string; now?: Date; locale?: string },
): Promise<EmailChangeRequest> {
  const { user, key } = input;
  const email = input.email.trim();
  const now = input.now ?? new Date();
  if (!isEmailAddress(email)) return { ok: false, problem: 'invalid' };
  if (email.toLowerCase() === user.email.toLowerCase()) {
    if (email !== user.email) await updateUser(store, user.id, { email });
    return { ok: true, pending: false };
  }
  if (await store.users.findByEmail(email)) return { ok: false, problem: 'taken' };
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await store.transaction(async (tx) => {
    await tx.emailChanges.save({
      user_id: user.id,
      email,
      code_hash: secretsFrom(key).hash('email-code', code),
      expires_at: new Date(now.getTime() + EMAIL_CODE_MINUTES * 60_000),
    });
    await audit(tx, 'email.change_requested', { user: user.uuid, actor: { ...currentActor(), type: 'user', id: user.uuid } });
    await queueLast(sendMail, emailCodeMessage(email, user.uuid, code, EMAIL_CODE_MINUTES, input.locale));
  });
  return { ok: true, pending: true };
}

/** The address waiting for its code, while its code may still be typed. */
export async function pendingEmailChange(store: Store, user: UserRow, now = new Date()): Promise<string | undefined> {
  const pending = await store.emailChanges.find(user.id, now);
  return pending && pending.attempts < EMAIL_CODE_TRIES ? pending.email : undefined;
}

/** Counts a try against the pending change and, with the right code, makes it (see the file's comment). */
export async function confirmEmailChange(
  store: Store,
  sendMail: SendMail,
  input: { user: UserRow; code: string; key: string; now?: Date; locale?: string },
): Promise<EmailCodeCheck> {
  const { user } = input;
  const now = input.now ?? new Date();
  const row = await store.emailChanges.countAttempt(user.id, EMAIL_CODE_TRIES, now);
  if (!row) return { ok: false, reason: (await store.emailChanges.find(user.id, now)) ? 'exhausted' : 'missing' };
  const secrets = secretsFrom(input.key);
  if (!secrets.equal(secrets.hash('email-code', input.code.replace(/\s/g, '')), row.code_hash)) {
    const triesLeft = EMAIL_CODE_TRIES - row.attempts - 1;
    return triesLeft > 0 ? { ok: false, reason: 'wrong', triesLeft } : { ok: false, reason: 'exhausted' };
  }
  try {
    return await store.transaction(async (tx) => {
      const email = await tx.emailChanges.consume(user.id, row.code_hash, now);
      const before = await tx.users.lockById(user.id);
      if (!email || !before) return { ok: false, reason: 'missing' } as const;
      // user_updated for applications, user.updated in the trail (the person as actor: the account page's guard).
      await updateUser(tx, user.id, { email, email_verified: true });
      const changed = (await tx.users.findById(user.id))!;
      await queueLast(sendMail, emailChangedMessage(before.email, user.uuid, email, now, input.locale));
      return { ok: true, user: changed } as const;
    });
  } catch (error) {
    // Taken meanwhile (the unique index decides): nothing changed, the code stays unspent.
    if (error instanceof ValidationError && error.fields.email) return { ok: false, reason: 'taken' };
    throw error;
  }
}

/** Drops the waiting change: the code stops working. */
export async function cancelEmailChange(store: Store, user: UserRow): Promise<void> {
  await store.emailChanges.cancel(user.id);
}
