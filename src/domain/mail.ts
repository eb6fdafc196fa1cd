/**
 * Outgoing e-mail. Producers hand a message to `SendMail` (the web process queues it on the `mail` queue);
 * the workers call `deliverMail`, which speaks SMTP (mail.smtp_url) or, with no SMTP configured,
 * writes the message to <data_dir>/mail/ so a newcomer on the embedded default can still finish a flow. The log
 * only ever says which user a message went to: codes and links stay out of it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Settings } from '../settings/schema.js';

export interface MailMessage {
  to: string;
  /** The recipient's user uuid: what the log names instead of the address or the content. */
  userId: string;
  /** Never carries a code or a link: subjects show in notifications and mail logs. */
  subject: string;
  text: string;
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
  by: { kind: 'administrator' } | { kind: 'recovery_link' } | { kind: 'code'; appName: string } | { kind: 'account_page' };
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

const transports = new Map<string, Transporter>();
function smtpTransport(url: string): Transporter {
  let transport = transports.get(url);
  if (!transport) transports.set(url, (transport = nodemailer.createTransport(url)));
  return transport;
}

/** Sends one message; throws on failure so the queue retries it. The log names the user only: never the content. */
export async function deliverMail(settings: Settings, logger: Logger, message: MailMessage): Promise<void> {
  const envelope = { from: settings.mail.from, to: message.to, subject: message.subject, text: message.text };
  if (settings.mail.smtp_url) {
    await smtpTransport(settings.mail.smtp_url).sendMail(envelope);
    logger.info({ user: message.userId }, 'mail sent');
    return;
  }
  const raw = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }).sendMail(envelope);
  const dir = path.join(settings.data_dir, 'mail');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.eml`);
  await writeFile(file, raw.message as Buffer, { mode: 0o600 });
  logger.warn({ user: message.userId, file }, 'mail.smtp_url is empty: message written to a file instead of sent');
}
