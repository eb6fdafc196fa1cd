/**
 * The one rule every change of someone's credentials follows: a password set or replaced (by an administrator
 * through the API, with a recovery link, with a mailed setup or reset code, or by the person on the account page),
 * or every second factor removed by an administrator (TOTP, recovery codes and passkeys: a lost device). In one
 * transaction: the change, its audit event, the end of every session, grant and token of the user (but the
 * browser that made the change on the account page), the backchannel logouts, and a notice to the user's
 * mailbox, queued last: a queue that refuses it undoes the change. A first password (none before) follows the
 * same rule: there may be sessions (a passkey sign-in) and the owner should hear that a password now exists.
 */
import { inEnglish } from '../i18n/messages.js';
import type { Store, UserRow } from '../store/contract.js';
import { NotFoundError, Unavailable, ValidationError } from '../errors.js';
import { hashPassword, policyProblems, type PasswordPolicy } from './passwords.js';
import { credentialsChangedMessage, storedLocale, type CredentialsNotice, type SendMail } from './mail.js';
import { signOutEverywhere } from './logout.js';
import { audit, currentActor, type Actor } from './audit.js';
import type { AuditAction } from './audit-actions.js';

/** Who changed it; the audit trail and the notice say so. */
export type ChangedBy =
  | { kind: 'administrator' }
  | { kind: 'recovery_link' }
  /** The link of an invitation (invitations.ts). */
  | { kind: 'invitation' }
  /** A mailed setup or reset code, typed while signing in to `appName`. */
  | { kind: 'code'; appName: string }
  /** The person on the account page: `keepSession` (their browser's session) stays signed in. */
  | { kind: 'account_page'; keepSession: string };

export type CredentialChange =
  /** The new password (checked against the policy here too); `verifiesEmail` when a mailed code or link proved the mailbox. */
  { password: string; policy: PasswordPolicy; verifiesEmail?: boolean } | { removeSecondFactors: true };

export interface ChangedCredentials {
  user: UserRow;
  /** Whether the user had a password that this one replaced. */
  replaced: boolean;
}

const PASSWORD_ACTIONS: Record<ChangedBy['kind'], AuditAction> = {
  administrator: 'password.set',
  recovery_link: 'password.reset',
  invitation: 'password.reset',
  code: 'password.reset',
  account_page: 'password.changed',
};

/** An administrator acts as the API token they hold; everyone else is the person whose credentials change. */
const actorFor = (by: ChangedBy, user: UserRow): Actor =>
  by.kind === 'administrator' ? currentActor() : { ...currentActor(), type: 'user', id: user.uuid };

/**
 * Applies `change` by the rule above. Undefined when nothing changed: `spend` lost (a recovery link used
 * meanwhile), or there was no second factor to remove. A refused notice throws Unavailable and nothing changes.
 */
export async function changeCredentials(
  store: Store,
  sendMail: SendMail,
  input: {
    userId: number;
    change: CredentialChange;
    by: ChangedBy;
    /** Spent first, in the same transaction (a recovery link): false aborts with nothing changed. */
    spend?: (tx: Store) => Promise<boolean>;
    now?: Date;
    /** The notice's language: the page's when the person made the change there; else the account's stored one. */
    locale?: string;
  },
): Promise<ChangedCredentials | undefined> {
  const { change, by } = input;
  const now = input.now ?? new Date();
  // bcrypt runs before the transaction opens, so no row stays locked while it works.
  let hash: string | undefined;
  if ('password' in change) {
    const user = await store.users.findById(input.userId);
    if (!user) throw new NotFoundError('user');
    const problems = policyProblems(change.password, user.email, change.policy);
    if (problems.length) throw new ValidationError({ password: problems.map(inEnglish) });
    hash = await hashPassword(change.password, change.policy.bcrypt_cost);
  }

  return store.transaction(async (tx) => {
    if (input.spend && !(await input.spend(tx))) return undefined;
    let user = await tx.users.lockById(input.userId);
    if (!user) throw new NotFoundError('user');
    let notice: CredentialsNotice['change'];
    let replaced = false;
    if (hash !== undefined) {
      replaced = Boolean(await tx.credentials.passwordHash(user.id));
      await tx.credentials.setPasswordHash(user.id, hash);
      if ('verifiesEmail' in change && change.verifiesEmail && !user.email_verified) {
        user = (await tx.users.update(user.id, { email_verified: true }))!;
      }
      notice = replaced ? 'password_changed' : 'password_set';
      const details = { replaced, sessions_ended: true, notice: true };
      await audit(tx, PASSWORD_ACTIONS[by.kind], { user: user.uuid, actor: actorFor(by, user), details });
    } else {
      const totp = await tx.mfa.removeAll(user.id);
      const passkeys = await tx.passkeys.removeAll(user.id);
      if (!totp && !passkeys) return undefined; // nothing to remove: nothing changed
      notice = 'second_factors_removed';
      const details = { passkeys, sessions_ended: true, notice: true };
      await audit(tx, 'mfa.removed', { user: user.uuid, actor: actorFor(by, user), details });
    }
    await signOutEverywhere(tx, user.uuid, by.kind === 'account_page' ? by.keepSession : undefined);
    try {
      const locale = input.locale ?? storedLocale(user);
      await sendMail(credentialsChangedMessage(user.email, user.uuid, { change: notice, by, at: now }, locale));
    } catch (error) {
      throw new Unavailable('The mail queue', error); // the transaction rolls back: no change without its notice
    }
    return { user, replaced };
  });
}
