/**
 * The account page in chromium, on both stores, with the real mail path (BullMQ, the mail worker, an SMTP
 * listener) and real backchannel receivers: it signs in through its own client and the SSO session; a password
 * change ends the other sessions and tokens; TOTP is enrolled and removed; recovery codes are replaced; one
 * application or everything is signed out; a change after ten minutes asks for a fresh sign-in; a form without
 * the session's CSRF token changes nothing.
 */
import type { Page } from 'playwright-core';
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { codeIn, startSmtpCapture, type CapturedMail, type SmtpCapture } from '../helpers/smtp.js';
import { postToken } from '../helpers/oidc-rp.js';
import { runFlow, tokensOf } from '../helpers/oidc-flow.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { verifyLogoutToken } from '../helpers/logout-token.js';
import { secretOnPage, totpCode } from '../helpers/totp.js';
import type { TestApp } from '../helpers/oidc-server.js';
import { hasTotp } from '../../src/domain/totp.js';
import { useRecoveryCode } from '../../src/domain/recovery-codes.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from '../credentials/credentials-server.js';
import { alertText, enterEmail, enterPassword, heading, silentAuthorization } from '../credentials/flow.js';

const NEW_PASSWORD = 'another long and private phrase';

async function openAccount(page: Page, idp: CredentialsServer, email: string) {
  await page.goto(`${idp.url}/account/`);
  await expect(heading(page)).resolves.toBe('Sign in');
  await enterEmail(page, email);
  await enterPassword(page, PASSWORD);
  await expect(heading(page)).resolves.toBe('Your account');
}

const statusText = (page: Page) => page.getByRole('status').textContent();

describe.each(engines)('account page (%s)', (engine) => {
  const web = useBrowser();
  let smtp: SmtpCapture;
  let backchannel: Receiver;
  let idp: CredentialsServer;

  beforeAll(async () => {
    [smtp, backchannel] = await Promise.all([startSmtpCapture(), startReceiver()]);
    idp = await startCredentialsServer(
      engine,
      web.rp.url,
      [
        { slug: 'wiki', backchannel_logout_uri: `${backchannel.url}/wiki` },
        { slug: 'notes', backchannel_logout_uri: `${backchannel.url}/notes` },
      ],
      {
        mail: { smtp_url: smtp.url, from: 'IdP <idp@example.com>' },
        rate_limits: { ip_per_minute: 1000 },
        webhooks: { allow_insecure_loopback: true },
        // Never reached here: the links below are made in the store, as a sign-in through them would.
        sources: [
          { slug: 'corp', type: 'oidc', name: 'Corp SSO', issuer: 'http://127.0.0.1:1', client_id: 'idp', client_secret: 'x' },
          { slug: 'forge', type: 'oidc', name: 'Forge', issuer: 'http://127.0.0.1:2', client_id: 'idp', client_secret: 'x' },
        ],
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
  const refresh = (app: TestApp, token: string) =>
    postToken(idp.url, { grant_type: 'refresh_token', refresh_token: token, client_id: app.client_id, client_secret: app.client_secret });

  test('the SSO session opens the page without a second sign-in; it lists the applications and fits 390 px', async () => {
    const user = await idp.user({ name: 'Grace Hopper' });
    await web.page.setViewportSize({ width: 390, height: 800 });
    await tokensOf(await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD }));
    await web.page.goto(`${idp.url}/account`);
    await expect(heading(web.page)).resolves.toBe('Your account');
    await expect(web.page.title()).resolves.toBe('Your account');
    await expect(web.page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expect(web.page.locator('dl.profile').textContent()).resolves.toContain('Grace Hopper');
    await expect(web.page.getByRole('list', { name: 'Applications' }).textContent()).resolves.toContain('App wiki');
    const overflow = await web.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  test('changing the password: the old one stops working, other sessions and tokens end, wiki hears it, a notice is mailed', async () => {
    const user = await idp.user();
    const wiki = idp.apps.wiki!;
    const other = await web.browser.newContext();
    try {
      const otherPage = await other.newPage();
      const earlier = await tokensOf(await runFlow(otherPage, wiki, { email: user.email, password: PASSWORD }));
      await openAccount(web.page, idp, user.email);

      await web.page.getByLabel('Current password').fill('not my password');
      await web.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await web.page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
      await web.page.getByRole('button', { name: 'Change password' }).click();
      await expect(alertText(web.page)).resolves.toBe('Your current password is not right.');
      expect((await refresh(wiki, earlier.refresh_token!)).status).toBe(200); // nothing changed yet

      await web.page.getByLabel('Current password').fill(PASSWORD);
      await web.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await web.page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
      await web.page.getByRole('button', { name: 'Change password' }).click();
      await expect(statusText(web.page)).resolves.toBe('Your password was changed. Your other sessions were signed out.');

      expect((await silentAuthorization(otherPage, wiki)).searchParams.get('error')).toBe('login_required');
      const refreshed = await refresh(
        wiki,
        (await tokensOf(await runFlow(await other.newPage(), wiki, { email: user.email, password: NEW_PASSWORD }))).refresh_token!,
      );
      expect(refreshed.status).toBe(200); // the new password signs in
      expect((await refresh(wiki, earlier.refresh_token!)).body.error).toBe('invalid_grant');
      await verifyLogoutToken((await backchannel.waitFor(1))[0]!, wiki, user.uuid);
    } finally {
      await other.close();
    }
    await expect(smtp.waitFor(user.email).then((mail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1]?.trim())).resolves.toBe(
      'Your password was changed',
    );
    // This browser stays on its account page; the old password no longer signs in anywhere.
    await web.page.reload();
    await expect(heading(web.page)).resolves.toBe('Your account');
    const fresh = await web.browser.newContext();
    const page = await fresh.newPage();
    await page.goto(`${idp.url}/account/`);
    await enterEmail(page, user.email);
    await enterPassword(page, PASSWORD);
    await expect(alertText(page)).resolves.toBe('Incorrect e-mail or password.');
    await fresh.close();
  });

  test('TOTP is enrolled from the account page (codes to copy or download) and removed again', async () => {
    const user = await idp.user();
    await openAccount(web.page, idp, user.email);
    await web.page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = await secretOnPage(web.page);
    await web.page.getByLabel('Authentication code').fill('000000');
    await web.page.getByRole('button', { name: 'Confirm' }).click();
    await expect(alertText(web.page)).resolves.toBe('That code is not right. Check the app and try the next code.');
    await web.page.getByLabel('Authentication code').fill(totpCode(secret));
    await web.page.getByRole('button', { name: 'Confirm' }).click();
    await expect(heading(web.page)).resolves.toBe('Two-step verification is on');
    const codes = await web.page.getByRole('list', { name: 'Recovery codes' }).locator('li').allTextContents();
    expect(codes).toHaveLength(10);
    await expect(web.page.getByLabel('As text').inputValue()).resolves.toContain(codes[0]);
    const download = await web.page.getByRole('link', { name: 'Download' }).getAttribute('href');
    expect(decodeURIComponent(download!.replace(/^data:text\/plain;charset=utf-8,/, ''))).toContain(codes[9]);
    const id = (await idp.store.users.findByUuid(user.uuid))!.id;
    expect(await hasTotp(idp.store, id)).toBe(true);

    await web.page.getByRole('link', { name: 'I have saved them' }).click();
    await expect(web.page.locator('#two-step + p, #two-step ~ p').first().textContent()).resolves.toContain('10 recovery codes left');
    await web.page.getByRole('button', { name: 'Remove the authenticator app' }).click();
    await expect(statusText(web.page)).resolves.toBe('Two-step verification with an authenticator app was removed.');
    expect(await hasTotp(idp.store, id)).toBe(false);
  });

  test('new recovery codes replace the old ones', async () => {
    const user = await idp.user();
    const id = (await idp.store.users.findByUuid(user.uuid))!.id;
    await openAccount(web.page, idp, user.email);
    await web.page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = await secretOnPage(web.page);
    await web.page.getByLabel('Authentication code').fill(totpCode(secret));
    await web.page.getByRole('button', { name: 'Confirm' }).click();
    const first = await web.page.getByRole('list', { name: 'Recovery codes' }).locator('li').allTextContents();
    await web.page.getByRole('link', { name: 'I have saved them' }).click();

    await web.page.getByRole('button', { name: 'New recovery codes' }).click();
    await expect(heading(web.page)).resolves.toBe('Your new recovery codes');
    const second = await web.page.getByRole('list', { name: 'Recovery codes' }).locator('li').allTextContents();
    expect(second).toHaveLength(10);
    expect(second).not.toContain(first[0]);
    await expect(useRecoveryCode(idp.store, id, first[0]!, idp.settings.secrets.key)).resolves.toBe(false);
    await expect(useRecoveryCode(idp.store, id, second[0]!, idp.settings.secrets.key)).resolves.toBe(true);
  });

  test('signing out of one application, then everywhere', async () => {
    const user = await idp.user();
    const [wiki, notes] = [idp.apps.wiki!, idp.apps.notes!];
    const wikiTokens = await tokensOf(await runFlow(web.page, wiki, { email: user.email, password: PASSWORD }));
    const notesTokens = await tokensOf(await runFlow(web.page, notes, { email: user.email, password: PASSWORD }));
    await web.page.goto(`${idp.url}/account/`);
    await web.page.getByRole('button', { name: 'Sign out of App notes' }).click();
    await expect(statusText(web.page)).resolves.toBe('You were signed out of the application.');
    await verifyLogoutToken((await backchannel.waitFor(1))[0]!, notes, user.uuid);
    expect((await refresh(notes, notesTokens.refresh_token!)).body.error).toBe('invalid_grant');
    expect((await refresh(wiki, wikiTokens.refresh_token!)).status).toBe(200);
    await expect(web.page.getByRole('list', { name: 'Applications' }).textContent()).resolves.not.toContain('App notes');

    backchannel.received.length = 0;
    await web.page.getByRole('link', { name: 'Sign out everywhere' }).click();
    await expect(heading(web.page)).resolves.toBe('Sign out everywhere?'); // asked first
    await web.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect(heading(web.page)).resolves.toBe('You are signed out everywhere');
    await verifyLogoutToken((await backchannel.waitFor(1))[0]!, wiki, user.uuid);
    expect((await silentAuthorization(web.page, wiki)).searchParams.get('error')).toBe('login_required');
    await web.page.goto(`${idp.url}/account/`);
    await expect(heading(web.page)).resolves.toBe('Sign in');
  });

  test('linked accounts elsewhere are listed and unlinked while another way to sign in remains', async () => {
    const user = await idp.user();
    for (const source of ['corp', 'forge'])
      await idp.store.sourceLinks.insert({ source, subject: `${source}-${user.uuid}`, user_id: user.pk });
    await openAccount(web.page, idp, user.email);
    const linked = web.page.getByRole('list', { name: 'Linked accounts' });
    await expect(linked.textContent()).resolves.toMatch(/Corp SSO[\s\S]*Forge/);

    await web.page.getByRole('button', { name: 'Unlink Corp SSO' }).click();
    await expect(statusText(web.page)).resolves.toContain('The link was removed.');
    await expect(idp.store.sourceLinks.find('corp', `corp-${user.uuid}`)).resolves.toBeUndefined();
    const audit = await idp.store.audit.list({ user: user.uuid }, { offset: 0, limit: 50 });
    expect(audit.rows.find((row) => row.action === 'source.unlinked')?.details).toMatchObject({ source: 'corp', by: 'user' });

    // Without the password, Forge is the only way in: no button, and a forged post is refused with nothing removed.
    await idp.db.database.db.updateTable('users').set({ password_hash: null }).where('id', '=', user.pk).execute();
    await web.page.goto(`${idp.url}/account/`);
    await expect(web.page.getByRole('button', { name: 'Unlink Forge' }).count()).resolves.toBe(0);
    await expect(web.page.locator('#sources ~ p.hint').first().textContent()).resolves.toContain('This is your only way to sign in');
    const csrf = await web.page.locator('input[name="csrf"]').first().inputValue();
    const refused = await web.page.request.post(`${idp.url}/account/sources/unlink`, { form: { csrf, source: 'forge' } });
    expect(refused.status()).toBe(409);
    expect(await refused.text()).toContain('This is your only way to sign in.');
    await expect(idp.store.sourceLinks.find('forge', `forge-${user.uuid}`)).resolves.toMatchObject({ user_id: user.pk });
  });

  test('each signed-in browser is listed (browser and system, first and last use, applications); one is signed out, then this one', async () => {
    const user = await idp.user();
    const phone = await web.browser.newContext({
      userAgent:
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    });
    const phoneTokens = await tokensOf(await runFlow(await phone.newPage(), idp.apps.notes!, { email: user.email, password: PASSWORD }));
    await phone.close();
    await tokensOf(await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD }));
    await web.page.goto(`${idp.url}/account/`);
    const browsers = web.page.getByRole('list', { name: 'Signed-in browsers' });
    await expect(browsers.locator('li').count()).resolves.toBe(2);
    const text = await browsers.textContent();
    expect(text).toMatch(/Mobile Safari on iOS \(iPhone\)[\s\S]*App notes/);
    expect(text).toMatch(/Chrome Headless on Linux · this browser[\s\S]*App wiki/);
    // In the reader's locale (en here), with the server's time zone named: "Nov 28, 2026, 2:05 PM UTC".
    expect(text).toMatch(/first signed in [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d\s[AP]M \S+ · last used/);

    await browsers.getByRole('button', { name: /^Sign out of Mobile Safari/ }).click();
    await expect(statusText(web.page)).resolves.toBe('That browser was signed out; its applications were told.');
    await expect(browsers.locator('li').count()).resolves.toBe(1);
    expect((await refresh(idp.apps.notes!, phoneTokens.refresh_token!)).body.error).toBe('invalid_grant');

    await browsers.getByRole('button', { name: 'Sign out of this browser' }).click();
    await expect(heading(web.page)).resolves.toBe('You are signed out of this browser');
    expect((await silentAuthorization(web.page, idp.apps.wiki!)).searchParams.get('error')).toBe('login_required');
  });

  test('a change ten minutes after the sign-in asks to sign in again first, then comes back', async () => {
    const user = await idp.user();
    await openAccount(web.page, idp, user.email);
    // Age the SSO session's sign-in by eleven minutes, as time would.
    const sessions = idp.store.oidcPayloads;
    const cookie = (await web.context.cookies()).find((c) => c.name === 'idp_account')!;
    const {
      value: { sid },
    } = JSON.parse(Buffer.from(cookie.value.split('.')[0]!, 'base64url').toString()) as { value: { sid: string } };
    const session = (await sessions.findByUid('Session', sid, new Date()))!;
    await sessions.upsert({ ...session, payload: { ...session.payload, loginTs: Math.floor(Date.now() / 1000) - 660 } });
    await web.page.reload();
    await expect(web.page.locator('.hint').first().textContent()).resolves.toContain('more than ten minutes ago');

    await web.page.getByLabel('Current password').fill(PASSWORD);
    await web.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await web.page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await web.page.getByRole('button', { name: 'Change password' }).click();
    await expect(heading(web.page)).resolves.toBe('Sign in');
    await expect(web.page.getByLabel('Email', { exact: true }).inputValue()).resolves.toBe(user.email);
    await web.page.getByRole('button', { name: 'Continue' }).click();
    await enterPassword(web.page, PASSWORD); // the password did not change
    await expect(statusText(web.page)).resolves.toBe('Thank you: you can make changes for the next ten minutes.');
    await expect(web.page.locator('.hint', { hasText: 'more than ten minutes ago' }).count()).resolves.toBe(0);
  });

  test("a change without the session's CSRF token is refused and changes nothing", async () => {
    const user = await idp.user();
    await tokensOf(await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD }));
    await web.page.goto(`${idp.url}/account/`);
    const answer = await web.page.request.post(`${idp.url}/account/sign-out-everywhere`, { form: { csrf: 'forged' } });
    expect(answer.status()).toBe(403);
    expect(await answer.text()).toContain('This form has expired');
    expect((await silentAuthorization(web.page, idp.apps.wiki!)).searchParams.get('code')).toEqual(expect.any(String));
  });
});

describe('account page with profile_edits (pglite)', () => {
  const web = useBrowser();
  let idp: CredentialsServer;
  let hooks: Receiver;
  let smtp: SmtpCapture;
  beforeAll(async () => {
    [hooks, smtp] = await Promise.all([startReceiver(), startSmtpCapture()]);
    idp = await startCredentialsServer(
      'pglite',
      web.rp.url,
      [{ slug: 'wiki', webhook: { url: `${hooks.url}/hook`, secret: 'hook-secret-0123456789' } }],
      {
        account: { profile_edits: true, changes_per_hour: 30 },
        mail: { smtp_url: smtp.url, from: 'IdP <idp@example.com>' },
        rate_limits: { ip_per_minute: 1000 },
        webhooks: { allow_insecure_loopback: true },
      },
    );
  });
  afterAll(async () => {
    await idp?.close();
    await hooks?.close();
    await smtp?.close();
  });

  const subjectOf = (mail: CapturedMail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1]?.trim();
  const saveProfile = async (name: string, email: string) => {
    await web.page.getByLabel('Name', { exact: true }).fill(name);
    await web.page.getByLabel('E-mail', { exact: true }).fill(email);
    await web.page.getByRole('button', { name: 'Save profile' }).click();
  };
  const enterEmailCode = async (code: string) => {
    await web.page.getByLabel('Code from the e-mail').fill(code);
    await web.page.getByRole('button', { name: 'Confirm the new address' }).click();
  };

  test('a new address waits for the code mailed to it; the code makes it the address, verified; the old address hears of it', async () => {
    const user = await idp.user({ name: 'Old Name' });
    await openAccount(web.page, idp, user.email);
    await web.page.getByLabel('Name', { exact: true }).fill('');
    await web.page.getByRole('button', { name: 'Save profile' }).click();
    await expect(heading(web.page)).resolves.toBe('Your account'); // the browser refuses an empty required field
    const renamed = `renamed-${user.email}`;
    await saveProfile('New Name', renamed);
    await expect(statusText(web.page)).resolves.toContain('We sent a code to your new address.');
    // The name is saved; the address is not, yet.
    expect(await idp.store.users.findByUuid(user.uuid)).toMatchObject({ name: 'New Name', email: user.email });
    const code = codeIn(await smtp.waitFor(renamed));
    expect(smtp.messages.filter((mail) => mail.to.includes(user.email))).toEqual([]);

    await enterEmailCode(code === '000000' ? '111111' : '000000');
    await expect(alertText(web.page)).resolves.toBe('That code is not right. 4 of 5 tries left.');
    expect((await idp.store.users.findByUuid(user.uuid))!.email).toBe(user.email);
    await enterEmailCode(code);
    await expect(statusText(web.page)).resolves.toBe('Your e-mail address was changed.');

    const row = (await idp.store.users.findByUuid(user.uuid))!;
    expect(row).toMatchObject({ name: 'New Name', email: renamed, email_verified: true });
    const { rows } = await idp.store.audit.list({ user: user.uuid, action: 'user.updated' }, { offset: 0, limit: 5 });
    expect(rows[0]).toMatchObject({ actor_type: 'user', actor: user.uuid, details: { changed: ['email', 'email_verified'] } });
    expect(rows[1]).toMatchObject({ actor_type: 'user', actor: user.uuid, details: { changed: ['name'] } });
    const hooksOf = async (count: number) => (await hooks.waitFor(count)).map((hit) => JSON.parse(hit.raw.toString('utf8')));
    expect((await hooksOf(2)).map((hook) => [hook.event_type, hook.data.user_id, hook.data.changed])).toEqual([
      ['user_updated', user.uuid, ['name']],
      ['user_updated', user.uuid, ['email', 'email_verified']],
    ]);
    const notice = await smtp.waitFor(user.email);
    expect(subjectOf(notice)).toBe('Your e-mail address was changed');
    expect(notice.raw).toContain(renamed);
    expect(notice.raw).not.toContain(code);
    // The code was spent: the page no longer asks for one.
    await expect(web.page.getByLabel('Code from the e-mail').count()).resolves.toBe(0);
  });

  test('addresses the API refuses are refused here too: nothing waits, nothing is mailed', async () => {
    const user = await idp.user();
    await openAccount(web.page, idp, user.email);
    const csrf = await web.page.locator('form[action="/account/profile"] input[name="csrf"]').inputValue();
    const mails = smtp.messages.length;
    // Posted as a script would (the browser's own check of type=email is not what protects the account).
    for (const email of ['ceo@corp.t\u0435st', '<script>@x.example', 'x"@y.example', 'ada@exa mple.com', `${'a'.repeat(250)}@x.io`]) {
      const answer = await web.page.request.post(`${idp.url}/account/profile`, { form: { csrf, name: 'Ada', email } });
      expect(answer.status()).toBe(400);
      expect(await answer.text()).toContain('Enter a valid e-mail address.');
      const api = await idp.api('/api/v3/core/users/', { json: { username: `u-${mails}-${email.length}`, email, name: 'Ada' } });
      expect(api).toMatchObject({ status: 400, body: { email: expect.any(Array) } });
    }
    await expect(idp.store.emailChanges.find(user.pk, new Date())).resolves.toBeUndefined();
    expect(smtp.messages.length).toBe(mails);
    expect((await idp.store.users.findByUuid(user.uuid))!.email).toBe(user.email);

    const other = await idp.user();
    await web.page.reload();
    await saveProfile('Ada', other.email.toUpperCase());
    await expect(alertText(web.page)).resolves.toBe('That e-mail address cannot be used.');
    expect(smtp.messages.length).toBe(mails);
  });

  test('"Keep my current address" drops the waiting change; five wrong codes spend it', async () => {
    const user = await idp.user();
    await openAccount(web.page, idp, user.email);
    await saveProfile('Ada', `kept-${user.email}`);
    const first = codeIn(await smtp.waitFor(`kept-${user.email}`));
    await web.page.getByRole('button', { name: 'Keep my current address' }).click();
    await expect(statusText(web.page)).resolves.toBe('Your e-mail address stays as it is.');
    await expect(web.page.getByLabel('Code from the e-mail').count()).resolves.toBe(0);
    // The dropped change's code changes nothing.
    const csrf = await web.page.locator('form[action="/account/profile"] input[name="csrf"]').inputValue();
    const late = await web.page.request.post(`${idp.url}/account/email/confirm`, { form: { csrf, code: first } });
    expect(await late.text()).toContain('That code is no longer valid.');

    await saveProfile('Ada', `guessed-${user.email}`);
    const code = codeIn(await smtp.waitFor(`guessed-${user.email}`));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let left = 4; left >= 1; left--) {
      await enterEmailCode(wrong);
      await expect(alertText(web.page)).resolves.toBe(`That code is not right. ${left} of 5 tries left.`);
    }
    await enterEmailCode(wrong);
    await expect(alertText(web.page)).resolves.toBe('Too many wrong codes. Save the new address again to get a new code.');
    const again = await web.page.request.post(`${idp.url}/account/email/confirm`, { form: { csrf, code } });
    expect(await again.text()).toContain('Too many wrong codes.');
    expect((await idp.store.users.findByUuid(user.uuid))!.email).toBe(user.email);
  });
});
