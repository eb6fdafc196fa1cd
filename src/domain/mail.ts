/**
 * Outgoing e-mail as the domain sees it (a port): the messages, and `SendMail`, which producers hand them to (the
 * web process queues them on the `mail` queue; src/infra/mail-transport.ts delivers them). Codes and links stay out
 * of subjects and of every log line.
 */
import type { Text } from '../i18n/messages.js';

export interface MailMessage {
  to: string;
  /** The recipient's user uuid: what the log names instead of the address or the content. */
  userId: string;
  /** The recipient's language, when known (the page they are on, their account's); else i18n.default_locale. */
  locale?: string;
  /** Never carries a code or a link: subjects show in notifications and mail logs. A Text is translated at delivery. */
  subject: string | Text;
  text: string | Text;
}

export type SendMail = (message: MailMessage) => Promise<void>;

export function setupCodeMessage(to: string, userId: string, appName: string, code: string, minutes: number): MailMessage {
  return {
    to,
    userId,
    subject: 'Your code to set a password',
    text:
      `Hello,\n\nsomeone (hopefully you) is signing in to ${appName} and needs to set a password.\n\n` +
      `Your code: ${code}\n\nIt is valid for ${minutes} minutes. If it was not you, ignore this message.\n`,
  };
}

export function resetCodeMessage(to: string, userId: string, appName: string, code: string, minutes: number): MailMessage {
  return {
    to,
    userId,
    subject: 'Your code to reset your password',
    text:
      `Hello,\n\nsomeone (hopefully you) is signing in to ${appName} and asked to reset the password of this account.\n\n` +
      `Your code: ${code}\n\nIt is valid for ${minutes} minutes. If it was not you, ignore this message: your password stays as it is.\n`,
  };
}

/** A code that confirms a new address (the account page): sent to the new address, nothing changes without it. */
export function emailCodeMessage(to: string, userId: string, code: string, minutes: number): MailMessage {
  return {
    to,
    userId,
    subject: 'Your code to confirm your e-mail address',
    text:
      'Hello,\n\nsomeone (hopefully you) asked to use this address for their account, on their account page.\n\n' +
      `Your code: ${code}\n\nIt is valid for ${minutes} minutes. If it was not you, ignore this message: nothing changes.\n`,
  };
}

/** To the old address once the new one is confirmed, so a change the owner did not make does not go unnoticed. */
export function emailChangedMessage(to: string, userId: string, newAddress: string, at: Date): MailMessage {
  return {
    to,
    userId,
    subject: 'Your e-mail address was changed',
    text:
      `Hello,\n\nthe e-mail address of your account was changed on ${at.toUTCString()}, on your account page, ` +
      `from this address to ${newAddress}. Mail about your account now goes there.\n\n` +
      'If this was you, there is nothing more to do.\nIf it was not you, contact your administrator right away.\n',
  };
}

/** What changed, and by whom (credential-changes.ts), as a notice words it. */
export interface CredentialsNotice {
  change: 'password_set' | 'password_changed' | 'second_factors_removed';
  by:
    | { kind: 'administrator' }
    | { kind: 'recovery_link' }
    | { kind: 'invitation' }
    | { kind: 'code'; appName: string }
    | { kind: 'account_page' };
  at: Date;
}

const NOTICE_SUBJECTS: Record<CredentialsNotice['change'], string> = {
  password_set: 'A password was set for your account',
  password_changed: 'Your password was changed',
  second_factors_removed: 'Your two-step verification was reset',
};

/**
 * After any credential change: tells the owner of the mailbox, so a change they did not make does not go
 * unnoticed. No code, no link.
 */
export function credentialsChangedMessage(to: string, userId: string, notice: CredentialsNotice): MailMessage {
  const what = {
    password_set: 'a password was set for your account',
    password_changed: 'the password of your account was changed',
    second_factors_removed: 'the authenticator app, recovery codes and passkeys of your account were removed',
  }[notice.change];
  const { by } = notice;
  const how =
    by.kind === 'administrator'
      ? 'by an administrator'
      : by.kind === 'recovery_link'
        ? 'with a link from your administrator'
        : by.kind === 'invitation'
          ? 'with the link of your invitation'
          : by.kind === 'code'
            ? `with a code sent to this address, while signing in to ${by.appName}`
            : 'on your account page';
  const signedOut =
    by.kind === 'account_page'
      ? 'Your other sessions were signed out.'
      : by.kind === 'code'
        ? 'You were signed out everywhere else.'
        : 'You were signed out everywhere.';
  return {
    to,
    userId,
    subject: NOTICE_SUBJECTS[notice.change],
    text:
      `Hello,\n\n${what} on ${notice.at.toUTCString()}, ${how}. ${signedOut}\n\n` +
      'If this was you, there is nothing more to do.\nIf it was not you, contact your administrator right away.\n',
  };
}

/** An invitation (invitations.ts): the link to set a password, how long it lasts, and where it leads. */
export function invitationMessage(to: string, userId: string, name: string, link: string, expires: Date): MailMessage {
  return {
    to,
    userId,
    subject: 'You are invited: set up your account',
    text:
      `Hello ${name},\n\nan account was made for you, with this e-mail address. Choose your password here:\n\n${link}\n\n` +
      `The link works once, until ${expires.toUTCString()}. If you did not expect this, ignore this message.\n`,
  };
}
