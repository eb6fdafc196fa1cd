/**
 * Password setup by e-mailed code (spec §1) through the real pages: the code travels through the BullMQ
 * `mail` queue and the mail worker to a real SMTP listener; then the same sign-in reaches the callback.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { codeIn, startSmtpCapture, type SmtpCapture } from '../helpers/smtp.js';
import { testSettings } from '../helpers/settings.js';
import { createLogger } from '../../src/observability/logger.js';
import { deliverMail } from '../../src/infra/mail-transport.js';
import { startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { alertText, enterEmail, enterPassword, heading, startFlow } from './flow.js';

const NEW_PASSWORD = 'a brand new passphrase';

describe.each(engines)('password setup by e-mailed code (%s)', (engine) => {
  const web = useBrowser();
  let smtp: SmtpCapture;
  let idp: CredentialsServer;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    idp = await startCredentialsServer(engine, web.rp.url, [{ slug: 'wiki' }, { slug: 'vault', require_mfa: true }], {
      mail: { smtp_url: smtp.url, from: 'IdP <idp@example.com>' },
    });
  });
  afterAll(async () => {
    await idp?.close();
    await smtp?.close();
  });

  async function fillSetup(code: string, password = NEW_PASSWORD, confirmation = password) {
    await web.page.getByLabel('Code from the e-mail').fill(code);
    await web.page.getByLabel('New password', { exact: true }).fill(password);
    await web.page.getByLabel('Repeat the new password').fill(confirmation);
    await web.page.getByRole('button', { name: 'Set password' }).click();
  }

  test('a user without a password gets a code by mail, sets a password and lands on the same callback', async () => {
    const user = await idp.user({ password: null });
    const flow = await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await expect(heading(web.page)).resolves.toBe('Set your password');
    const mail = await smtp.waitFor(user.email);
    expect(mail.raw).toContain('From: IdP <idp@example.com>');
    const code = codeIn(mail);
    expect(code).toMatch(/^\d{6}$/);

    await fillSetup(code, NEW_PASSWORD, 'something else entirely'); // a typo costs no try
    await expect(alertText(web.page)).resolves.toBe('The two passwords differ.');
    await fillSetup(code, user.email); // policy: not the e-mail
    await expect(alertText(web.page)).resolves.toContain('must not be the e-mail address');
    await fillSetup(code);
    await expect(flow.finish()).resolves.toHaveProperty('id_token');

    const row = (await idp.store.users.findById(user.pk))!;
    expect(row.email_verified).toBe(true);
    // The new password works for the next sign-in.
    await web.context.clearCookies();
    const again = await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await enterPassword(web.page, NEW_PASSWORD);
    await expect(again.finish()).resolves.toHaveProperty('id_token');
  });

  test('setup continues with MFA enrolment when the application requires it', async () => {
    const user = await idp.user({ password: null });
    await startFlow(web.page, idp.apps.vault!);
    await enterEmail(web.page, user.email);
    await fillSetup(codeIn(await smtp.waitFor(user.email)));
    await expect(heading(web.page)).resolves.toBe('Set up two-step verification');
  });

  test('wrong codes: 5 tries, then even the right code is refused', async () => {
    const user = await idp.user({ password: null });
    await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    const code = codeIn(await smtp.waitFor(user.email));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let left = 4; left >= 1; left--) {
      await fillSetup(wrong);
      await expect(alertText(web.page)).resolves.toBe(`That code is not right. ${left} of 5 tries left.`);
    }
    await fillSetup(wrong);
    await expect(alertText(web.page)).resolves.toBe('Too many wrong codes. Start again to get a new one.');
    await fillSetup(code);
    await expect(alertText(web.page)).resolves.toMatch(/^Too many/);
    await expect(idp.store.credentials.passwordHash(user.pk)).resolves.toBeNull();
  });

  test('an expired code is refused', async () => {
    const user = await idp.user({ password: null });
    await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    const code = codeIn(await smtp.waitFor(user.email));
    const uid = /\/if\/flow\/wiki\/([^/]+)\//.exec((await web.page.locator('form').getAttribute('action')) ?? '')![1]!;
    const row = (await idp.store.passwordSetup.findCode(uid))!;
    expect(row.code_hash).not.toContain(code); // stored hashed
    await idp.store.passwordSetup.saveCode({
      id: uid,
      user_id: user.pk,
      code_hash: row.code_hash,
      expires_at: new Date(Date.now() - 1000),
    });
    await fillSetup(code);
    await expect(alertText(web.page)).resolves.toBe('That code has expired. Start again to get a new one.');
    await expect(idp.store.credentials.passwordHash(user.pk)).resolves.toBeNull();
  });

  test('an unknown e-mail gets the password page, like a user with a password, and no mail', async () => {
    const before = smtp.messages.length;
    await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, 'nobody-here@example.com');
    await expect(heading(web.page)).resolves.toBe('Enter your password');
    await enterPassword(web.page, 'whatever it is');
    await expect(alertText(web.page)).resolves.toBe('Incorrect e-mail or password.');
    expect(smtp.messages.length).toBe(before);
  });
});

test('without SMTP the message is written to <data_dir>/mail/ and the log names only the user', async () => {
  const settings = await testSettings();
  const logged: string[] = [];
  const logger = createLogger('trace', { write: (line: string) => void logged.push(line) });
  await deliverMail(settings, logger, {
    to: 'ada@example.com',
    userId: 'user-uuid-1',
    subject: 'Your code to set a password',
    text: 'Your code: 123456\n',
  });
  expect(logged.join('')).toContain('"user":"user-uuid-1"');
  expect(logged.join('')).not.toMatch(/123456|ada@example\.com/);
  const dir = path.join(settings.data_dir, 'mail');
  const files = readdirSync(dir);
  expect(files).toHaveLength(1);
  const raw = readFileSync(path.join(dir, files[0]!), 'utf8');
  expect(raw).toContain('To: ada@example.com');
  expect(raw).toContain('Your code: 123456');
});
