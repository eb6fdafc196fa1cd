/**
 * Invitations (docs/credentials.md): a link mailed to a new colleague, valid `invitations.ttl_seconds`, single use,
 * to a page where they choose a password. A new invitation withdraws the one before, so only the latest mail works.
 * The link is stored as a keyed hash beside the administrators' recovery links and spent like them (password-setup.ts:
 * redeemLink): by the rule of every credential change, marking the address verified (the mail reached it).
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/contract.js';
import { NotFoundError, Unavailable, ValidationError } from '../errors.js';
import { secretsFrom } from './secrets.js';
import { invitationMessage, storedLocale, type SendMail } from './mail.js';
import { audit } from './audit.js';

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
      // Nobody is on a page of ours: the account's stored language, else the default.
      await sendMail(invitationMessage(user.email, user.uuid, user.name || user.username, link, expires, storedLocale(user)));
    } catch (error) {
      throw new Unavailable('The mail queue', error); // rolls back: no invitation nobody was told of
    }
    return { sent_to: user.email, expires_at: expires };
  });
}
