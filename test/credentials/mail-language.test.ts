/**
 * Mails in the reader's language: translated at delivery (src/infra/mail-transport.ts) in the language of the page
 * the person asked on, else the account's stored one. The German subjects here are an operator's override; the
 * bodies are the shipped German catalogue's.
 * One service, the real mail path (BullMQ, the mail worker, an SMTP listener), the pages by plain HTTP.
 */
import { engines } from '../helpers/database.js';
import { codeIn, startSmtpCapture, type CapturedMail, type SmtpCapture } from '../helpers/smtp.js';
import { CookieClient, formOf, pkceRequest, type HttpResponse } from '../helpers/http-client.js';
import { startCredentialsServer, type CredentialsServer } from './credentials-server.js';

const subjectOf = (mail: CapturedMail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1]?.trim();

describe.each(engines)('mail language (%s)', (engine) => {
  let smtp: SmtpCapture;
  let idp: CredentialsServer;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    idp = await startCredentialsServer(engine, 'http://127.0.0.1:9/callback', [{ slug: 'wiki' }], {
      mail: { smtp_url: smtp.url, from: 'IdP <idp@example.com>' },
      i18n: {
        default_locale: 'en',
        locales: ['en', 'de'],
        overrides: { de: { 'mail.reset_code.subject': 'Ihr Code', 'mail.invitation.subject': 'Sie sind eingeladen' } },
      },
    });
  });
  afterAll(async () => {
    await idp?.close();
    await smtp?.close();
  });

  /** "Forgot your password?" from the first page, the forgot form posted with the browser's Accept-Language. */
  async function askForResetCode(email: string, acceptLanguage: string): Promise<CapturedMail> {
    const http = new CookieClient();
    const headers = { 'Accept-Language': acceptLanguage };
    const request = await pkceRequest(idp.apps.wiki!, idp.url);
    const first = (await http.follow(await http.request(request.url.href, { headers }))) as HttpResponse;
    const forgotHref = /href="([^"]*forgot)"/.exec(first.text)?.[1];
    expect(forgotHref).toBeDefined();
    const forgot = await http.request(new URL(forgotHref!.replace(/&amp;/g, '&'), first.url).href, { headers });
    const form = formOf(forgot);
    const answer = await http.request(form.action, { form: { ...form.fields, email }, headers });
    expect(answer.status).toBe(200);
    return smtp.waitFor(email);
  }

  test('the reset code comes in the language of the page it was asked on', async () => {
    const user = await idp.user();
    const german = await askForResetCode(user.email, 'de-DE,de;q=0.9,en;q=0.5');
    expect(subjectOf(german)).toBe('Ihr Code');
    // No override for the body: the shipped German, with its code, and none of the English words.
    expect(german.raw.replace(/=\r?\n/g, '')).toMatch(/\b\d{6}\b/);
    expect(codeIn(german)).toBe('');
    const english = await askForResetCode(user.email, 'en-US,en;q=0.9');
    expect(subjectOf(english)).toBe('Your code to reset your password');
    expect(english.raw).toContain('valid for 10 minutes');
  });

  test("an invitation, which no page causes, comes in the account's stored language", async () => {
    const german = await idp.user({ password: null, attributes: { locale: 'de' } });
    await idp.api(`/api/v3/core/users/${german.pk}/invite/`, { method: 'POST' });
    expect(subjectOf(await smtp.waitFor(german.email))).toBe('Sie sind eingeladen');
    const plain = await idp.user({ password: null });
    await idp.api(`/api/v3/core/users/${plain.pk}/invite/`, { method: 'POST' });
    expect(subjectOf(await smtp.waitFor(plain.email))).toBe('You are invited: set up your account');
  });
});
