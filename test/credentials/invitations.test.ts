/**
 * Invitations (docs/credentials.md): POST /users/{pk}/invite/ and send_invite on create mail a link, through the
 * queue and the mail worker to a real SMTP listener; the link, followed in chromium, sets the password once and
 * leads on to invitations.redirect. A new invitation ends the old one; a used or expired link says who to ask.
 */
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { startSmtpCapture, type CapturedMail, type SmtpCapture } from '../helpers/smtp.js';
import { startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { enterEmail, enterPassword, heading, startFlow } from './flow.js';

const CONTACT = 'the IT desk (it@example.com)';
const CHOSEN = 'an invited passphrase';

/** The link in an invitation mail (quoted-printable soft breaks undone). */
const linkIn = (mail: CapturedMail) => /https?:\/\/\S+\/if\/invitation\/[A-Za-z0-9_-]+\//.exec(mail.raw.replace(/=\r?\n/g, ''))?.[0] ?? '';

describe.each(engines)('invitations (%s)', (engine) => {
  const web = useBrowser();
  let smtp: SmtpCapture;
  let idp: CredentialsServer;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    idp = await startCredentialsServer(engine, web.rp.url, [{ slug: 'wiki' }], {
      mail: { smtp_url: smtp.url, from: 'IdP <idp@example.com>' },
      invitations: { ttl_seconds: 3600, redirect: `${web.rp.url}/start`, contact: CONTACT },
    });
  });
  afterAll(async () => {
    await idp?.close();
    await smtp?.close();
  });

  async function choosePassword(link: string, password = CHOSEN) {
    await web.page.goto(link);
    await web.page.getByLabel('New password', { exact: true }).fill(password);
    await web.page.getByLabel('Repeat the new password').fill(password);
    await web.page.getByRole('button', { name: 'Set password' }).click();
  }

  test('an invitation mails a link; the person chooses a password there, once, and goes on to invitations.redirect', async () => {
    const user = await idp.user({ password: null });
    const before = Date.now();
    const { status, body } = await idp.api(`/api/v3/core/users/${user.pk}/invite/`, { method: 'POST' });
    expect(status).toBe(200);
    expect(body.sent_to).toBe(user.email);
    const expires = Date.parse(body.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000);

    const mail = await smtp.waitFor(user.email);
    expect(mail.raw).toMatch(/^Subject: You are invited: set up your account$/m);
    const link = linkIn(mail);
    expect(link).toMatch(new RegExp(`^${idp.url}/if/invitation/[A-Za-z0-9_-]{43}/$`));

    await web.page.goto(link); // opening it (a mail scanner) does not spend it
    await expect(heading(web.page)).resolves.toBe('Welcome: choose your password');
    await choosePassword(link);
    await web.page.waitForURL(`${web.rp.url}/start`);
    const row = (await idp.store.users.findById(user.pk))!;
    expect(row.email_verified).toBe(true);

    const again = await web.page.goto(link);
    expect(again!.status()).toBe(404);
    await expect(heading(web.page)).resolves.toBe('This invitation is no longer valid');
    await expect(web.page.locator('main').innerText()).resolves.toContain(`Ask ${CONTACT} to send you a new one.`);

    const flow = await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await enterPassword(web.page, CHOSEN);
    await expect(flow.finish()).resolves.toHaveProperty('id_token');
    const audit = await idp.api(`/api/v3/events/audit/?user=${user.uuid}`);
    expect(audit.body.results.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['user.invited', 'password.reset']));
  });

  test('sending again replaces the link: the first one no longer works, the second does', async () => {
    const user = await idp.user({ password: null });
    await idp.api(`/api/v3/core/users/${user.pk}/invite/`, { method: 'POST' });
    const first = linkIn(await smtp.waitFor(user.email));
    await idp.api(`/api/v3/core/users/${user.pk}/invite/`, { method: 'POST' });
    const second = linkIn(await smtp.waitFor(user.email));
    expect(second).not.toBe(first);

    expect((await web.page.goto(first))!.status()).toBe(404);
    await expect(heading(web.page)).resolves.toBe('This invitation is no longer valid');
    await choosePassword(second);
    await web.page.waitForURL(`${web.rp.url}/start`);
    await expect(idp.store.credentials.passwordHash(user.pk)).resolves.toEqual(expect.any(String));
  });

  test('an expired invitation shows who to ask and sets nothing; a bad password keeps the link for another try', async () => {
    const user = await idp.user({ password: null });
    await idp.api(`/api/v3/core/users/${user.pk}/invite/`, { method: 'POST' });
    const link = linkIn(await smtp.waitFor(user.email));
    await choosePassword(link, 'short');
    await expect(web.page.getByRole('alert').textContent()).resolves.toContain('at least 8 characters');

    await idp.db.database.db
      .updateTable('recovery_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', user.pk)
      .execute();
    const expired = await web.page.goto(link);
    expect(expired!.status()).toBe(404);
    await expect(web.page.locator('main').innerText()).resolves.toContain(CONTACT);
    await expect(idp.store.credentials.passwordHash(user.pk)).resolves.toBeNull();
  });

  test('send_invite on create mails the new user; a deactivated user cannot be invited, and nothing is created or sent', async () => {
    const email = `invited-${Date.now()}@example.com`;
    const created = await idp.api('/api/v3/core/users/', { json: { username: email, email, name: 'New Colleague', send_invite: true } });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('send_invite');
    expect(linkIn(await smtp.waitFor(email))).toMatch(/\/if\/invitation\//);

    const inactive = await idp.user({ is_active: false });
    const refused = await idp.api(`/api/v3/core/users/${inactive.pk}/invite/`, { method: 'POST' });
    expect(refused).toEqual({ status: 400, body: { is_active: ['The user is deactivated; reactivate them before inviting.'] } });
    const other = `not-created-${Date.now()}@example.com`;
    const rolledBack = await idp.api('/api/v3/core/users/', {
      json: { username: other, email: other, name: 'Not Created', is_active: false, send_invite: true },
    });
    expect(rolledBack.status).toBe(400);
    const listed = await idp.api(`/api/v3/core/users/?email=${encodeURIComponent(other)}`);
    expect(listed.body.results).toEqual([]);
    expect((await idp.api('/api/v3/core/users/999999/invite/', { method: 'POST' })).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 500)); // time for a message to reach the listener, were one queued
    expect(smtp.messages.flatMap((m) => m.to)).not.toContain(inactive.email.toLowerCase());
    expect(smtp.messages.flatMap((m) => m.to)).not.toContain(other);
  });
});
