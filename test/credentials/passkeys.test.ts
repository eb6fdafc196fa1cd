/**
 * Passkeys in chromium with its virtual authenticator (DevTools Protocol): enrolled on the account page, then
 * used passwordless from the e-mail page and as the second factor of a require_mfa application; the ID token's
 * amr says how. The access-group rule still holds, a cloned authenticator (a sign counter that went back) is
 * refused and logged, and a removed passkey no longer signs in.
 */
import type { Page } from 'playwright-core';
import { engines } from '../helpers/database.js';
import { useBrowser, waitForCallback } from '../helpers/browser.js';
import { addVirtualAuthenticator, type VirtualAuthenticator } from '../helpers/webauthn.js';
import { captureLog } from '../helpers/log-capture.js';
import type { TestApp } from '../helpers/oidc-server.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { alertText, enterEmail, enterPassword, heading, startFlow } from './flow.js';
import { PASSKEY_FAILED as FAILED_KEY, PASSKEY_REFUSED as REFUSED_KEY } from '../../src/interactions/submit-passkey.js';
import { Messages } from '../../src/i18n/messages.js';

// The constants are catalogue keys now; the page shows their English text.
const english = new Messages().translator('en');
const PASSKEY_FAILED = english.t(FAILED_KEY);
const PASSKEY_REFUSED = english.t(REFUSED_KEY);

/** Signs in to the account page with the password, adds a passkey named `name`; the page says it was added. */
async function enrolPasskey(page: Page, idp: CredentialsServer, email: string, name = 'Work laptop') {
  await page.goto(`${idp.url}/account/`);
  await enterEmail(page, email);
  await enterPassword(page, PASSWORD);
  await expect(heading(page)).resolves.toBe('Your account');
  await page.getByLabel('Name of the new passkey').fill(name);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.waitForURL(/notice=passkey-added/);
  await expect(page.getByRole('status').textContent()).resolves.toBe('Your passkey was added.');
}

const claimsOf = async (flow: Awaited<ReturnType<typeof startFlow>>) => (await flow.finish()).claims()!;

describe.each(engines)('passkeys (%s)', (engine) => {
  const web = useBrowser({ freshPerTest: true }); // virtual authenticators and page listeners outlive cleared cookies
  let idp: CredentialsServer;
  const log = captureLog();
  let authenticator: VirtualAuthenticator;

  beforeAll(async () => {
    idp = await startCredentialsServer(
      engine,
      web.rp.url,
      [{ slug: 'wiki' }, { slug: 'vault', require_mfa: true }, { slug: 'staff', access_group: 'staff' }],
      { rate_limits: { ip_per_minute: 1000 } },
      { hostname: 'localhost', logger: log.logger },
    );
  });
  afterAll(async () => idp?.close());
  beforeEach(async () => {
    authenticator = await addVirtualAuthenticator(web.page);
  });

  test('a passkey added on the account page signs in without a password; amr says hwk + user', async () => {
    const { email, uuid } = await idp.user();
    await enrolPasskey(web.page, idp, email);
    const [stored] = await idp.store.passkeys.listForUser((await idp.store.users.findByUuid(uuid))!.id);
    expect(stored).toMatchObject({ name: 'Work laptop', device_type: 'singleDevice', backed_up: false });
    expect((await authenticator.credentials())[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });

    await web.context.clearCookies(); // a new browser session; the passkey stays on the authenticator
    // The e-mail page starts the browser's passkey autofill (conditional UI); the virtual authenticator answers it.
    const flow = await startFlow(web.page, idp.apps.wiki!);
    const claims = await claimsOf(flow);
    expect(claims.sub).toBe(uuid);
    expect(claims.amr).toEqual(['hwk', 'user']);
    expect((await idp.store.passkeys.find(stored!.id))!.sign_count).toBeGreaterThan(stored!.sign_count);
  });

  test('a passkey that proves presence only (no user verification) is the second factor of a require_mfa application', async () => {
    const { email, uuid } = await idp.user();
    await enrolPasskey(web.page, idp, email, 'Phone');
    authenticator = await authenticator.withoutUserVerification(); // presence only: no PIN or biometrics
    await web.context.clearCookies();
    const flow = await startFlow(web.page, idp.apps.vault!);
    // Passwordless asks for user verification, which this authenticator cannot give: the autofill offers nothing.
    await enterEmail(web.page, email);
    await enterPassword(web.page, PASSWORD);
    await expect(heading(web.page)).resolves.toBe('Two-step verification');
    await expect(web.page.getByLabel('Authentication code').count()).resolves.toBe(0); // no TOTP: the passkey only
    await web.page.getByRole('button', { name: 'Use a passkey' }).click();
    const claims = await claimsOf(flow);
    expect(claims.sub).toBe(uuid);
    expect(claims.amr).toEqual(['pwd', 'hwk']);
  });

  test('a require_mfa application lets a user without a second factor enrol a passkey instead of an authenticator app', async () => {
    const { email, uuid } = await idp.user();
    const flow = await startFlow(web.page, idp.apps.vault!);
    await enterEmail(web.page, email);
    await enterPassword(web.page, PASSWORD);
    await expect(heading(web.page)).resolves.toBe('Set up two-step verification');
    await web.page.getByLabel('Name of the new passkey').fill('Office key');
    await web.page.getByRole('button', { name: 'Use a passkey instead' }).click();
    const claims = await claimsOf(flow);
    expect(claims.sub).toBe(uuid);
    expect(claims.amr).toEqual(['pwd', 'hwk', 'user']);
    const user = (await idp.store.users.findByUuid(uuid))!;
    expect((await idp.store.passkeys.listForUser(user.id)).map((passkey) => passkey.name)).toEqual(['Office key']);
    expect(await idp.store.mfa.findTotp(user.id)).toMatchObject({ confirmed_at: null }); // the app's secret stayed pending, unused
  });

  test('passwordless sign-in still meets the access-group rule', async () => {
    const { email } = await idp.user();
    await enrolPasskey(web.page, idp, email);
    await web.context.clearCookies();
    const { request } = await startFlow(web.page, idp.apps.staff!);
    const callback = await waitForCallback(web.page, (idp.apps.staff as TestApp).redirect_uri);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(request.state);
  });

  test('a passkey whose sign counter went back (a clone) is refused, logged and audited', async () => {
    const { email, uuid } = await idp.user();
    await enrolPasskey(web.page, idp, email);
    await web.context.clearCookies();
    const first = await startFlow(web.page, idp.apps.wiki!);
    await first.finish();

    const [credential] = await authenticator.credentials();
    await authenticator.rewind(credential!, 0);
    await web.context.clearCookies();
    await startFlow(web.page, idp.apps.wiki!);
    await web.page.waitForSelector('.error');
    await expect(alertText(web.page)).resolves.toBe(PASSKEY_REFUSED);
    expect(log.lines.some((line) => line.level === 40 && /cloned authenticator/.test(String(line.msg)))).toBe(true);
    const { rows } = await idp.store.audit.list({ user: uuid, action: 'passkey.clone_detected' }, { offset: 0, limit: 5 });
    expect(rows).toHaveLength(1);
  });

  test('a passkey renamed and then removed on the account page no longer signs in', async () => {
    const { email } = await idp.user();
    await enrolPasskey(web.page, idp, email);
    await web.page.getByLabel('New name for Work laptop').fill('Old laptop');
    await web.page.getByRole('button', { name: 'Rename' }).click();
    await web.page.waitForURL(/notice=passkey-renamed/);
    await expect(web.page.getByRole('list', { name: 'Your passkeys' }).textContent()).resolves.toContain('Old laptop');
    await web.page.getByRole('button', { name: /^Remove Old laptop$/ }).click();
    await web.page.waitForURL(/notice=passkey-removed/);
    await web.context.clearCookies();
    await startFlow(web.page, idp.apps.wiki!);
    await web.page.waitForSelector('.error');
    await expect(alertText(web.page)).resolves.toBe(PASSKEY_FAILED);
    // After a failure the autofill waits for the person: the button asks again, with the same answer.
    await Promise.all([web.page.waitForEvent('load'), web.page.getByRole('button', { name: 'Sign in with a passkey' }).click()]);
    await expect(alertText(web.page)).resolves.toBe(PASSKEY_FAILED);
    await expect(web.page.getByLabel('Email', { exact: true }).count()).resolves.toBe(1);
  });
});
