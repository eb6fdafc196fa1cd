/**
 * The two mails of self-registration (registration.ts): the code that confirms a new address, and, when the
 * address already has an account, a note saying so (the page looks the same either way; the inbox tells).
 */
import { mailText as text, type MailMessage } from './mail.js';

/** Before an account exists, the log names the registration instead of a user. */
const NO_USER_YET = 'registration';

export function registrationCodeMessage(to: string, appName: string, code: string, minutes: number, locale?: string): MailMessage {
  return {
    to,
    userId: NO_USER_YET,
    locale,
    subject: text('mail.registration_code.subject'),
    text: text('mail.registration_code.body', { app: appName, passcode: code, minutes }),
  };
}

export function alreadyRegisteredMessage(to: string, userId: string, appName: string, locale?: string): MailMessage {
  return {
    to,
    userId,
    locale,
    subject: text('mail.already_registered.subject'),
    text: text('mail.already_registered.body', { app: appName }),
  };
}
