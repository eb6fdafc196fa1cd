/**
 * "Forgot your password?" through the real pages (chromium), the real mail path (BullMQ on Redis, the mail
 * worker, an SMTP listener) and the real backchannel delivery: the reset lands at the application's callback,
 * ends the user's other sessions and refresh tokens, mails a notice; unknown addresses cannot be told apart;
 * asking too often is refused.
 */
import type { Page } from 'playwright-core';
import { engines } from '../helpers/database.js';
import { useBrowser, waitForCallback } from '../helpers/browser.js';
import { codeIn, startSmtpCapture, type CapturedMail, type SmtpCapture } from '../helpers/smtp.js';
import { authorizationRequest, discover, postToken } from '../helpers/oidc-rp.js';
import { runFlow, tokensOf } from '../helpers/oidc-flow.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { verifyLogoutToken } from '../helpers/logout-token.js';
import { totpCode } from '../helpers/totp.js';
import type { TestApp } from '../helpers/oidc-server.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { alertText, enterCode, enterEmail, enterPassword, heading, silentAuthorization, startFlow } from './flow.js';

const NEW_PASSWORD = 'a fresh and memorable passphrase';
const CODE_DID_NOT_WORK = 'That code did not work. Check the latest e-mail we sent, or ask for a new code.';
const TOO_MANY_CODES = /^We have sent as many codes as we can for now\. .* try again in \d+ minutes\.$/;

/** The text of a mail as a person reads it (quoted-printable undone), headers apart. */
function bodyOf(mail: CapturedMail): string {
  const body = mail.raw
    .split(/\r?\n\r?\n/)
    .slice(1)
    .join('\n');
  return body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

const subjectOf = (mail: CapturedMail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1]?.trim();

/** From the password page: the link, then the e-mail page, then "Send code". */
async function askForCode(page: Page, email: string) {
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(heading(page)).resolves.toBe('Reset your password');
  await sendCodeTo(page, email);
}

async function sendCodeTo(page: Page, email: string) {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
}

async function fillReset(page: Page, code: string, password = NEW_PASSWORD, confirmation = password) {
  await page.getByLabel('Code from the e-mail').fill(code);
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('Repeat the new password').fill(confirmation);
  await page.getByRole('button', { name: 'Set new password' }).click();
}

describe.each(engines)('forgotten password (%s)', (engine) => {
  const web = useBrowser();
  let smtp: SmtpCapture;
  let backchannel: Receiver;
  let idp: CredentialsServer;

  beforeAll(async () => {
    [smtp, backchannel] = await Promise.all([startSmtpCapture(), startReceiver()]);
    idp = await startCredentialsServer(
      engine,
      web.rp.url,
      [{ slug: 'wiki', backchannel_logout_uri: `${backchannel.url}/bc` }, { slug: 'notes' }],
      {
        mail: { smtp_url: smtp.url, from: 'IdP <idp@example.com>' },
        // This file makes many posts from 127.0.0.1 within a minute; the per-IP limit has its own test below.
        rate_limits: { ip_per_minute: 1000 },
        webhooks: { allow_insecure_loopback: true }, // the backchannel receiver is on 127.0.0.1
      },
    );
  });
  afterAll(async () => {
    await idp?.close();
    await smtp?.close();
    await backchannel?.close();
  });
  beforeEach(() => {
    backchannel.received.length = 0;
  });

  const refresh = (app: TestApp, refreshToken: string) =>
    postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: app.client_id,
      client_secret: app.client_secret,
    });

  test('a user with a password resets it by mailed code and lands at the callback; every other session and refresh token ends', async () => {
    const user = await idp.user();
    const wiki = idp.apps.wiki!;

    // Signed in before, in a second browser: a session, a grant with wiki and a refresh token.
    const other = await web.browser.newContext();
    try {
      const otherPage = await other.newPage();
      const earlier = await tokensOf(await runFlow(otherPage, wiki, { email: user.email, password: PASSWORD }));
      expect(earlier.refresh_token).toEqual(expect.any(String));
      // The second browser's session holds before the reset (so the checks after it can fail).
      expect((await silentAuthorization(otherPage, wiki)).searchParams.get('code')).toEqual(expect.any(String));

      const flow = await startFlow(web.page, wiki);
      await enterEmail(web.page, user.email);
      await expect(heading(web.page)).resolves.toBe('Enter your password');
      await askForCode(web.page, user.email);
      await expect(heading(web.page)).resolves.toBe('Check your e-mail');
      const mail = await smtp.waitFor(user.email);
      expect(subjectOf(mail)).toBe('Your code to reset your password');
      const code = codeIn(mail);
      expect(code).toMatch(/^\d{6}$/);

      await fillReset(web.page, code, NEW_PASSWORD, 'not the same at all'); // a typo costs no try
      await expect(alertText(web.page)).resolves.toBe('The two passwords differ.');
      await expect(web.page.getByLabel('Code from the e-mail').inputValue()).resolves.toBe(code); // kept: only the passwords again
      await fillReset(web.page, code);
      const tokens = await flow.finish();
      expect(tokens.id_token).toEqual(expect.any(String));
      expect(JSON.parse(Buffer.from(tokens.id_token!.split('.')[1]!, 'base64url').toString()).sub).toBe(user.uuid);

      // The other browser is signed out, and its refresh token is refused.
      const silent = await silentAuthorization(otherPage, wiki);
      expect(silent.searchParams.get('error')).toBe('login_required');
      expect(silent.searchParams.get('code')).toBeNull();
      const refreshed = await refresh(wiki, earlier.refresh_token!);
      expect(refreshed.status).toBe(400);
      expect(refreshed.body.error).toBe('invalid_grant');
      // The session that followed the reset is new and lives: its refresh token works.
      expect((await refresh(wiki, tokens.refresh_token!)).status).toBe(200);

      // wiki heard a backchannel logout for the user.
      await verifyLogoutToken((await backchannel.waitFor(1))[0]!, wiki, user.uuid);
    } finally {
      await other.close();
    }

    // The notice: its own subject, no code and no link.
    const notice = await smtp.waitFor(user.email);
    expect(subjectOf(notice)).toBe('Your password was changed');
    const text = bodyOf(notice);
    expect(text).toContain('You were signed out everywhere else.');
    expect(text).not.toMatch(/\d{6}/);
    expect(text).not.toMatch(/https?:|\/if\//);

    const row = (await idp.store.users.findById(user.pk))!;
    expect(row.email_verified).toBe(true);
    const { rows } = await idp.store.audit.list({ user: user.uuid, action: 'password.reset' }, { offset: 0, limit: 10 });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor_type: 'user',
      actor: user.uuid,
      details: { replaced: true, sessions_ended: true, notice: true },
    });

    // The old password no longer works; the new one does.
    await web.context.clearCookies();
    await startFlow(web.page, wiki);
    await enterEmail(web.page, user.email);
    await enterPassword(web.page, PASSWORD);
    await expect(alertText(web.page)).resolves.toBe('Incorrect e-mail or password.');
    await web.context.clearCookies();
    const again = await startFlow(web.page, wiki);
    await enterEmail(web.page, user.email);
    await enterPassword(web.page, NEW_PASSWORD);
    await expect(again.finish()).resolves.toHaveProperty('id_token');
  });

  test('signed in on this very browser (prompt=login): the reset ends that session too and the sign-in still reaches the callback', async () => {
    const user = await idp.user();
    const notes = idp.apps.notes!;
    await tokensOf(await runFlow(web.page, notes, { email: user.email, password: PASSWORD }));

    const config = await discover(notes);
    const request = await authorizationRequest(config, notes);
    request.url.searchParams.set('prompt', 'login');
    await web.page.goto(request.url.href);
    await enterEmail(web.page, user.email);
    await askForCode(web.page, user.email);
    await fillReset(web.page, codeIn(await smtp.waitFor(user.email)));
    const callback = await waitForCallback(web.page, notes.redirect_uri);
    expect(callback.searchParams.get('error')).toBeNull();
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    await smtp.waitFor(user.email); // the notice
  });

  test('a user with TOTP goes through the second step after the reset', async () => {
    const user = await idp.user();
    const key = idp.settings.secrets.key;
    const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(user.pk))!, key, true))!;
    await expect(confirmTotp(idp.store, user.pk, totpCode(secret, Date.now() - 30_000), key)).resolves.toBe('ok');

    const flow = await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await askForCode(web.page, user.email);
    await fillReset(web.page, codeIn(await smtp.waitFor(user.email)));
    await expect(heading(web.page)).resolves.toBe('Two-step verification');
    expect(web.page.url()).toContain('/if/flow/wiki/');
    await enterCode(web.page, totpCode(secret));
    await expect(flow.finish()).resolves.toHaveProperty('id_token');
    await expect(smtp.waitFor(user.email).then(subjectOf)).resolves.toBe('Your password was changed');
  });

  test('an unknown or inactive address sees the same pages and answers as an account, and no mail is sent', async () => {
    const user = await idp.user();
    const inactive = await idp.user({ is_active: false });
    const unknown = `nobody-${Date.now()}@example.com`;

    /** The reset page as a person sees it, the address blanked out; then what a wrong code, and a post to the setup page, answer. */
    async function answersFor(email: string) {
      await web.context.clearCookies();
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, email);
      await expect(heading(web.page)).resolves.toBe('Enter your password');
      const posted = web.page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/forgot'));
      await askForCode(web.page, email);
      const status = (await posted).status();
      const page = (await web.page.locator('main').innerText()).replaceAll(email, '<address>');
      const form = web.page.locator('form');
      const csrf = await form.locator('input[name="csrf"]').getAttribute('value');
      const action = await form.getAttribute('action');
      await fillReset(web.page, '000000');
      const wrongCode = await alertText(web.page);
      // The setup page of the same sign-in never finds a reset code, so it cannot tell either.
      const setup = await web.page.request.post(new URL(action!.replace(/reset$/, 'setup'), idp.url).href, {
        form: { csrf: csrf!, code: '000000', password: NEW_PASSWORD, confirmation: NEW_PASSWORD },
      });
      return { status, page, wrongCode, setup: { status: setup.status(), text: (await setup.text()).includes('This page has expired') } };
    }

    const known = await answersFor(user.email);
    expect(known.status).toBe(200);
    expect(known.page).toContain('If an account exists for <address>, we sent a 6-digit code to it.');
    expect(known.wrongCode).toBe(CODE_DID_NOT_WORK);
    expect(known.setup).toEqual({ status: 400, text: true });
    await expect(smtp.waitFor(user.email)).resolves.toBeDefined(); // the account did get its code
    await expect(answersFor(unknown)).resolves.toEqual(known);
    await expect(answersFor(inactive.email)).resolves.toEqual(known);

    await new Promise((resolve) => setTimeout(resolve, 1500)); // time for a message to reach the listener, were one queued
    const to = smtp.messages.flatMap((m) => m.to);
    expect(to).not.toContain(unknown);
    expect(to).not.toContain(inactive.email.toLowerCase());
    await expect(idp.store.credentials.passwordHash(user.pk)).resolves.toEqual(expect.any(String));
  });

  test('a wrong code costs a try and changes nothing; after 5 tries even the right code is refused', async () => {
    const user = await idp.user();
    await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await askForCode(web.page, user.email);
    const code = codeIn(await smtp.waitFor(user.email));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      await fillReset(web.page, wrong);
      await expect(alertText(web.page)).resolves.toBe(CODE_DID_NOT_WORK);
    }
    await fillReset(web.page, code);
    await expect(alertText(web.page)).resolves.toBe('Too many attempts. Go back to the application and sign in again.');
    await web.context.clearCookies();
    const flow = await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await enterPassword(web.page, PASSWORD); // unchanged
    await expect(flow.finish()).resolves.toHaveProperty('id_token');
  });

  test('codes are limited per address across sign-ins (unknown addresses too), not per sign-in only', async () => {
    const user = await idp.user();
    const mailsTo = () => smtp.messages.filter((m) => m.to.includes(user.email.toLowerCase())).length;

    // Three codes in one sign-in ("Send a new code" leads back to the e-mail page)…
    await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await askForCode(web.page, user.email);
    for (let i = 0; i < 2; i++) {
      await web.page.getByRole('link', { name: 'Send a new code' }).click();
      await sendCodeTo(web.page, user.email);
      await expect(heading(web.page)).resolves.toBe('Check your e-mail');
    }
    // …two in another: five for the address.
    await web.context.clearCookies();
    await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await askForCode(web.page, user.email);
    await web.page.getByRole('link', { name: 'Send a new code' }).click();
    await sendCodeTo(web.page, user.email);
    await expect(heading(web.page)).resolves.toBe('Check your e-mail');

    await web.page.getByRole('link', { name: 'Send a new code' }).click();
    await sendCodeTo(web.page, user.email);
    await expect(heading(web.page)).resolves.toBe('Reset your password');
    await expect(alertText(web.page)).resolves.toMatch(TOO_MANY_CODES);
    // Another address from the same sign-in still may ask.
    await sendCodeTo(web.page, `someone-else-${Date.now()}@example.com`);
    await expect(heading(web.page)).resolves.toBe('Check your e-mail');

    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(mailsTo()).toBe(5);

    // An unknown address is counted the same way, so the limit tells nothing either.
    const ghost = `ghost-${Date.now()}@example.com`;
    for (let i = 0; i < 5; i++) {
      await web.context.clearCookies();
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, ghost);
      await askForCode(web.page, ghost);
      await expect(heading(web.page)).resolves.toBe('Check your e-mail');
    }
    await web.page.getByRole('link', { name: 'Send a new code' }).click();
    await sendCodeTo(web.page, ghost);
    await expect(alertText(web.page)).resolves.toMatch(TOO_MANY_CODES);
  });
});

describe.each(engines)('forgotten password, per-IP limit (%s)', (engine) => {
  const web = useBrowser();

  test('asking for codes counts against the per-IP limit like every sign-in post', async () => {
    const idp = await startCredentialsServer(engine, web.rp.url, [{ slug: 'wiki' }], { rate_limits: { ip_per_minute: 2 } });
    try {
      await startFlow(web.page, idp.apps.wiki!);
      await enterEmail(web.page, `someone-${Date.now()}@example.com`);
      await askForCode(web.page, `first-${Date.now()}@example.com`);
      await web.page.getByRole('link', { name: 'Send a new code' }).click();
      await sendCodeTo(web.page, `second-${Date.now()}@example.com`);
      await expect(heading(web.page)).resolves.toBe('Check your e-mail');
      await web.page.getByRole('link', { name: 'Send a new code' }).click();
      await sendCodeTo(web.page, `third-${Date.now()}@example.com`);
      await expect(alertText(web.page)).resolves.toMatch(/^Too many attempts from your network\. Try again in \d+ seconds?\.$/);
    } finally {
      await idp.close();
    }
  });
});
