/**
 * Outgoing e-mail as the domain sees it (a port): the messages, and `SendMail`, which producers hand them to (the
 * web process queues them on the `mail` queue; src/infra/mail-transport.ts delivers them). Codes and links stay out
 * of subjects and of every log line.
 */
import type { Text } from '../i18n/messages.js';

/**
 * A mail's words not yet translated (the pages' Text, narrowed): a catalogue key (locales/en/mail.json)
 * and its values. It travels through the queue as JSON, so values are strings and numbers only; a date is its epoch
 * milliseconds, formatted by the message (`{at, date, long}`). A code is `{passcode}`: `{code}` is the name of a tag.
 */
export type MailText = Text<string | number>;

export const mailText = (key: string, values?: Record<string, string | number>): MailText => ({ key, values });

export interface MailMessage {
  to: string;
  /** The recipient's user uuid: what the log names instead of the address or the content. */
  userId: string;
  /**
   * The language to send it in (a BCP 47 tag): the page's when a person caused the mail, else the account's
   * stored one; src/infra/mail-transport.ts falls back to i18n.default_locale.
   */
  locale?: string;
  /**
   * Never carries a code or a link: subjects show in notifications and mail logs. Subject and text are translated
   * at delivery; a plain string (a job queued before mails were translated) is sent as it is.
   */
  subject: string | MailText;
  text: string | MailText;
}

export type SendMail = (message: MailMessage) => Promise<void>;

/** The language an account keeps (`attributes.locale`, else `preferred_language`), for mail no page caused. */
export function storedLocale(user: { attributes?: Record<string, unknown> }): string | undefined {
  const stored = user.attributes?.locale ?? user.attributes?.preferred_language;
  return typeof stored === 'string' && stored ? stored : undefined;
}

/** A one-time code that sets a password: a first one, or a forgotten one. */
function codeMessage(subject: string, body: string) {
  return (to: string, userId: string, appName: string, code: string, minutes: number, locale?: string): MailMessage => ({
    to,
    userId,
    locale,
    subject: mailText(subject),
    text: mailText(body, { app: appName, passcode: code, minutes }),
  });
}

export const setupCodeMessage = codeMessage('mail.setup_code.subject', 'mail.setup_code.body');
export const resetCodeMessage = codeMessage('mail.reset_code.subject', 'mail.reset_code.body');

/** A code that confirms a new address (the account page): sent to the new address, nothing changes without it. */
export function emailCodeMessage(to: string, userId: string, code: string, minutes: number, locale?: string): MailMessage {
  return {
    to,
    userId,
    locale,
    subject: mailText('mail.email_code.subject'),
    text: mailText('mail.email_code.body', { passcode: code, minutes }),
  };
}

/** To the old address once the new one is confirmed, so a change the owner did not make does not go unnoticed. */
export function emailChangedMessage(to: string, userId: string, newAddress: string, at: Date, locale?: string): MailMessage {
  return {
    to,
    userId,
    locale,
    subject: mailText('mail.email_changed.subject'),
    text: mailText('mail.email_changed.body', { address: newAddress, at: at.getTime() }),
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

/**
 * After any credential change: tells the owner of the mailbox, so a change they did not make does not go
 * unnoticed. No code, no link. One body for every case: the message selects on `change` and `by`.
 */
export function credentialsChangedMessage(to: string, userId: string, notice: CredentialsNotice, locale?: string): MailMessage {
  const { by } = notice;
  return {
    to,
    userId,
    locale,
    subject: mailText(`mail.credentials_changed.${notice.change}_subject`),
    text: mailText('mail.credentials_changed.body', {
      change: notice.change,
      by: by.kind,
      app: by.kind === 'code' ? by.appName : '',
      at: notice.at.getTime(),
    }),
  };
}

/** An invitation (invitations.ts): the link to set a password, how long it lasts, and where it leads. */
export function invitationMessage(to: string, userId: string, name: string, link: string, expires: Date, locale?: string): MailMessage {
  return {
    to,
    userId,
    locale,
    subject: mailText('mail.invitation.subject'),
    text: mailText('mail.invitation.body', { name, link, expires: expires.getTime() }),
  };
}
