/**
 * Delivers the domain's mail (src/domain/mail.ts): the workers call `deliverMail`, which speaks SMTP
 * (mail.smtp_url) or, with no SMTP configured, writes the message to <data_dir>/mail/ so a newcomer on the embedded
 * default can still finish a flow. The log only ever says which user a message went to: codes and links stay out.
 * Both the web process (no queue: it delivers at once) and the workers come through `deliverMail`, which translates
 * the message's subject and text (catalogue keys) into its locale, else i18n.default_locale, with the operator's
 * overrides.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Settings } from '../settings/schema.js';
import type { MailMessage } from '../domain/mail.js';
import { Messages } from '../i18n/messages.js';
import { matchLocale } from '../i18n/choose-locale.js';

const transports = new Map<string, Transporter>();
function smtpTransport(url: string): Transporter {
  let transport = transports.get(url);
  if (!transport) transports.set(url, (transport = nodemailer.createTransport(url)));
  return transport;
}

/** The service's messages, built once per settings object (its i18n section: locales offered, overrides). */
const messagesBySettings = new WeakMap<Settings, Messages>();
function messagesFor(settings: Settings): Messages {
  let messages = messagesBySettings.get(settings);
  if (!messages) messagesBySettings.set(settings, (messages = new Messages(settings.i18n)));
  return messages;
}

/** Subject and text in the message's language (an offered one, else the default); plain strings go as they are. */
export function translateMail(settings: Settings, message: MailMessage): { subject: string; text: string } {
  const messages = messagesFor(settings);
  const { t } = messages.translator(matchLocale(message.locale, messages.offered) ?? messages.defaultLocale);
  const words = (part: MailMessage['subject']) => (typeof part === 'string' ? part : t(part));
  return { subject: words(message.subject), text: words(message.text) };
}

/** Sends one message; throws on failure so the queue retries it. The log names the user only: never the content. */
export async function deliverMail(settings: Settings, logger: Logger, message: MailMessage): Promise<void> {
  const envelope = { from: settings.mail.from, to: message.to, ...translateMail(settings, message) };
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
