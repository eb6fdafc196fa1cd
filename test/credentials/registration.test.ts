/**
 * Self-registration (docs/credentials.md), in chromium through the real queue, mail worker and SMTP listener:
 * "Create an account" on an application that offers it, the mailed code, the account in its groups, the sign-in
 * going on to the application. Attacks: a known address (a mail, the same page), a foreign domain, a domain a
 * source claims, guessed and reused codes, a tampered ticket, the per-address mail limit, and an application that
 * takes no registrations.
 */
import type { Page } from 'playwright-core';
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { addVirtualAuthenticator } from '../helpers/webauthn.js';
import { startSmtpCapture, type CapturedMail, type SmtpCapture } from '../helpers/smtp.js';
import { startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { alertText, enterEmailAndPassword, heading, startFlow } from './flow.js';
import { oidcSource } from '../helpers/settings.js';

const CHOSEN = 'a registered passphrase';
const codeOf = (mail: CapturedMail) => /Your code: (\d{6})/.exec(mail.raw)?.[1] ?? '';
let counter = 0;
/** The account with this address, if any. */
const accountOf = async (idp: CredentialsServer, email: string) => (await idp.store.credentials.lookUpAddress(email)).record?.user;
const address = (domain = 'example.com') => `new-${Date.now().toString(36)}-${++counter}@${domain}`;

describe.each(engines)('self-registration (%s)', (engine) => {
  const web = useBrowser();
  let smtp: SmtpCapture;
  let idp: CredentialsServer;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    idp = await startCredentialsServer(
      engine,
      web.rp.url,
      [
        { slug: 'wiki', registration: { enabled: true, email_domains: ['example.com'], groups: ['wiki-readers'] } },
        { slug: 'closed' },
        { slug: 'open', registration: { enabled: true, email_domains: [], groups: [] } },
      ],
      {
        mail: { smtp_url: smtp.url, from: 'IdP <idp@example.com>' },
        // Its people sign in there (read lazily: never reached by these tests).
        sources: [oidcSource({ email_domains: ['corp.example'] })],
      },
      { hostname: 'localhost' }, // passkeys: WebAuthn refuses IP addresses
    );
  });
  afterAll(async () => {
    await idp?.close();
    await smtp?.close();
  });

  async function fillRegistration(page: Page, email: string, password = CHOSEN) {
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Your name').fill('Nova Newcomer');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Repeat the password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
  }

  /** The refused form again, shown with the name kept: another address, the password twice. */
  async function registerAgain(page: Page, email: string) {
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(CHOSEN);
    await page.getByLabel('Repeat the password').fill(CHOSEN);
    await page.getByRole('button', { name: 'Create account' }).click();
  }

  async function enterRegistrationCode(page: Page, code: string) {
    await page.getByLabel('Code from the e-mail').fill(code);
    await page.getByRole('button', { name: 'Create account' }).click();
  }

  test('a person creates an account with a mailed code, joins the listed groups, goes on to the application and signs in again with the password', async () => {
    const email = address();
    const flow = await startFlow(web.page, idp.apps.wiki!);
    await fillRegistration(web.page, email);
    await expect(heading(web.page)).resolves.toBe('Check your e-mail');
    expect(await accountOf(idp, email)).toBeUndefined(); // nothing exists before the address is confirmed

    const mail = await smtp.waitFor(email);
    expect(mail.raw).toMatch(/^Subject: Your code to create your account$/m);
    await enterRegistrationCode(web.page, codeOf(mail));
    const tokens = await flow.finish();
    expect(tokens.claims()!.email).toBe(email);

    const user = (await accountOf(idp, email))!;
    expect(user).toMatchObject({ is_active: true, email_verified: true, name: 'Nova Newcomer' });
    const groups = (await idp.store.users.groupsOf([user.id])).get(user.id)!;
    expect(groups).toEqual([await idp.groupUuid('wiki-readers')]);
    const audit = await idp.api(`/api/v3/events/audit/?user=${user.uuid}`);
    expect(audit.body.results.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['user.created', 'user.registered']),
    );

    await web.context.clearCookies();
    const again = await startFlow(web.page, idp.apps.wiki!);
    await enterEmailAndPassword(web.page, email, CHOSEN);
    await expect(again.finish()).resolves.toHaveProperty('id_token');
  });

  test('a known address gets a mail saying so and the same page; no code works and nothing changes', async () => {
    const known = await idp.user({ email: address() });
    await startFlow(web.page, idp.apps.wiki!);
    await fillRegistration(web.page, known.email, 'someone else’s passphrase');
    await expect(heading(web.page)).resolves.toBe('Check your e-mail');
    const mail = await smtp.waitFor(known.email);
    expect(mail.raw).toMatch(/^Subject: You already have an account$/m);
    expect(codeOf(mail)).toBe('');
    await enterRegistrationCode(web.page, '123456');
    await expect(alertText(web.page)).resolves.toBe('That code is not right. Check the e-mail and try again.');
    const row = (await idp.store.users.findById(known.pk))!;
    expect(row.name).not.toBe('Nova Newcomer');
  });

  test('an address outside registration.email_domains is refused before anything is mailed', async () => {
    const foreign = address('elsewhere.example');
    await startFlow(web.page, idp.apps.wiki!);
    await fillRegistration(web.page, foreign);
    await expect(alertText(web.page)).resolves.toBe('Accounts for this address cannot be created here. Use an address at example.com.');
    // A registration after it is mailed; the refused one never was (one queue, one worker: in order).
    const next = address();
    await registerAgain(web.page, next);
    await smtp.waitFor(next);
    expect(smtp.messages.some((m) => m.to.includes(foreign))).toBe(false);
    expect(await accountOf(idp, foreign)).toBeUndefined();
  });

  test('an address in a domain a source claims is refused, even where any domain may register: those people sign in there', async () => {
    const federated = address('corp.example');
    await startFlow(web.page, idp.apps.open!);
    await fillRegistration(web.page, federated);
    await expect(alertText(web.page)).resolves.toBe(
      'People with this address sign in with Corp; an account for it cannot be created here.',
    );
    // Another domain registers at the same application: the refusal is the source's, not the application's.
    const next = address('elsewhere.example');
    await registerAgain(web.page, next);
    await smtp.waitFor(next);
    expect(smtp.messages.some((m) => m.to.includes(federated))).toBe(false);
    expect(await accountOf(idp, federated)).toBeUndefined();
  });

  test('guessed codes run out, a used code cannot make a second account, and a tampered ticket is refused', async () => {
    const email = address();
    const flow = await startFlow(web.page, idp.apps.wiki!);
    await fillRegistration(web.page, email);
    const code = codeOf(await smtp.waitFor(email));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      await enterRegistrationCode(web.page, wrong);
      await expect(alertText(web.page)).resolves.toBe('That code is not right. Check the e-mail and try again.');
    }
    await enterRegistrationCode(web.page, code); // the right one, too late
    await expect(alertText(web.page)).resolves.toMatch(/^Too many wrong codes\. Try again in/);
    expect(await accountOf(idp, email)).toBeUndefined();

    // A second registration of the address, in a new sign-in. A changed ticket starts over.
    await web.context.clearCookies();
    await startFlow(web.page, idp.apps.wiki!);
    await fillRegistration(web.page, email);
    const form = web.page.locator('form[action$="/register/code"]');
    const action = new URL((await form.getAttribute('action'))!, web.page.url()).href;
    const csrf = await form.locator('input[name="csrf"]').inputValue();
    const ticket = await form.locator('input[name="ticket"]').inputValue();
    const fresh = codeOf(await smtp.waitFor(email));
    await form.locator('input[name="ticket"]').evaluate((input, value) => ((input as HTMLInputElement).value = value), `${ticket}x`);
    await enterRegistrationCode(web.page, fresh);
    await expect(alertText(web.page)).resolves.toBe('This page has expired. Start again to get a new code.');

    // The real ticket and code, posted twice at once (a double submit, a replay): one account; the other is refused.
    const answers = await Promise.all(
      [1, 2].map(() => web.page.request.post(action, { form: { csrf, ticket, code: fresh }, maxRedirects: 0, failOnStatusCode: false })),
    );
    expect(answers.map((answer) => answer.status()).sort()).toEqual([303, 409]);
    expect((await idp.api(`/api/v3/core/users/?email=${encodeURIComponent(email)}`)).body.results).toHaveLength(1);
    void flow;
  });

  test('each address gets at most code_mails_per_hour registration mails', async () => {
    const email = address();
    await startFlow(web.page, idp.apps.wiki!);
    const limit = idp.settings.rate_limits.code_mails_per_hour;
    for (let i = 0; i < limit; i++) {
      await fillRegistration(web.page, email);
      await expect(heading(web.page)).resolves.toBe('Check your e-mail');
      await web.page.getByRole('link', { name: 'Start again' }).click();
    }
    await fillRegistration(web.page, email);
    await expect(alertText(web.page)).resolves.toMatch(/^Too many accounts were asked for from here or for this address\. Try again in/);
  });

  test('an application that takes no registrations shows no link, and its registration page says so', async () => {
    await startFlow(web.page, idp.apps.closed!);
    expect(await web.page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);
    const response = await web.page.goto(`${web.page.url()}register`);
    expect(response!.status()).toBe(404);
    await expect(alertText(web.page)).resolves.toBe('This application does not take new accounts here. Ask its administrator for one.');
  });

  // Last: the page's virtual authenticator stays, and its passkey would answer later tests' sign-in pages.
  test('with both password fields empty, the account’s first credential is a passkey, added right after the code', async () => {
    await addVirtualAuthenticator(web.page);
    const email = address();
    const flow = await startFlow(web.page, idp.apps.wiki!);
    await fillRegistration(web.page, email, '');
    await enterRegistrationCode(web.page, codeOf(await smtp.waitFor(email)));
    await expect(heading(web.page)).resolves.toBe('Add a passkey');
    await web.page.getByLabel('Name of the new passkey').fill('Phone');
    await web.page.getByRole('button', { name: 'Add a passkey' }).click();
    const tokens = await flow.finish();
    expect(tokens.claims()!.amr).toEqual(['hwk', 'user']);
    const user = (await accountOf(idp, email))!;
    expect((await idp.store.passkeys.listForUser(user.id)).map((passkey) => passkey.name)).toEqual(['Phone']);
    expect(await idp.store.credentials.passwordHash(user.id)).toBeFalsy();
  });
});
