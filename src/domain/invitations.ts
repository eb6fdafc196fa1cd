/**
 * Invitations (docs/credentials.md): a link mailed to a new colleague, valid `invitations.ttl_seconds`, single use,
 * to a page where they choose a password. A new invitation withdraws the one before, so only the latest mail works.
 * The link is stored as a keyed hash beside the administrators' recovery links; setting the password follows the
 * rule of every credential change (credential-changes.ts) and marks the address verified (the mail reached it).
 */
import { randomBytes } from 'node:crypto';
import type { Store, UserRow } from '../store/contract.js';
import type { PasswordPolicy } from './passwords.js';
import { NotFoundError, Unavailable, ValidationError } from '../errors.js';
import { secretsFrom } from './secrets.js';
import { invitationMessage, type SendMail } from './mail.js';
import { audit } from './audit.js';
import { changeCredentials } from './credential-changes.js';
import { newPasswordProblems } from './password-setup.js';

const PURPOSE = 'invitation';

export interface Invitation {
  sent_to: string;
  expires_at: Date;
}

/**
 * Mails `userId` an invitation and withdraws any earlier one, in the caller's transaction when there is one (a
 * user created with send_invite): no mail without the stored link, no link without its mail queued.
 */
export async function inviteUser(
  store: Store,
  sendMail: SendMail,
  input: { userId: number; baseUrl: string; key: string; ttlSeconds: number; now?: Date },
): Promise<Invitation> {
  const now = input.now ?? new Date();
  const token = randomBytes(32).toString('base64url');
  const expires = new Date(now.getTime() + input.ttlSeconds * 1000);
  return store.transaction(async (tx) => {
    const user = await tx.users.lockById(input.userId);
    if (!user) throw new NotFoundError('user');
    if (!user.is_active) throw new ValidationError({ is_active: ['The user is deactivated; reactivate them before inviting.'] });
    const withdrawn = await tx.passwordSetup.withdrawInvitations(user.id, now);
    await tx.passwordSetup.saveLink({
      token_hash: secretsFrom(input.key).hash(PURPOSE, token),
      user_id: user.id,
      expires_at: expires,
      purpose: PURPOSE,
    });
    await audit(tx, 'user.invited', { user: user.uuid, details: { expires_at: expires.toISOString(), replaced: withdrawn > 0 } });
    const link = `${input.baseUrl.replace(/\/$/, '')}/if/invitation/${token}/`;
    try {
      await sendMail(invitationMessage(user.email, user.uuid, user.name || user.username, link, expires));
    } catch (error) {
      throw new Unavailable('The mail queue', error); // rolls back: no invitation nobody was told of
    }
    return { sent_to: user.email, expires_at: expires };
  });
}

/** The active user a live invitation belongs to. */
export async function userOfInvitation(store: Store, token: string, key: string, now = new Date()): Promise<UserRow | undefined> {
  for (const hash of secretsFrom(key).hashes(PURPOSE, token)) {
    const userId = await store.passwordSetup.findLink(hash, now);
    if (userId === undefined) continue;
    const user = await store.users.findById(userId);
    return user?.is_active ? user : undefined;
  }
  return undefined;
}

/**
 * Spends the invitation and sets the password, together: a ValidationError for a bad password leaves the link
 * live; undefined when the link is no longer live (used meanwhile, expired, or replaced by a newer invitation).
 */
export async function acceptInvitation(
  store: Store,
  sendMail: SendMail,
  input: { token: string; password: string; confirmation: string; key: string; policy: PasswordPolicy; now?: Date },
): Promise<UserRow | undefined> {
  const { token, key, now = new Date() } = input;
  const user = await userOfInvitation(store, token, key, now);
  if (!user) return undefined;
  const problems = newPasswordProblems(input.password, input.confirmation, user.email, input.policy);
  if (problems.length) throw new ValidationError({ password: problems });
  const changed = await changeCredentials(store, sendMail, {
    userId: user.id,
    change: { password: input.password, policy: input.policy, verifiesEmail: true },
    by: { kind: 'invitation' },
    async spend(tx) {
      for (const hash of secretsFrom(key).hashes(PURPOSE, token)) {
        if ((await tx.passwordSetup.consumeLink(hash, now)) === user.id) return true;
      }
      return false;
    },
    now,
  });
  return changed?.user;
}
