/**
 * TOTP through the real pages: enrolment under require_mfa (QR, secret, confirm, recovery codes) to the
 * application's callback; sign-in with a code; wrong and replayed codes; recovery codes that work once.
 */
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { otherStepCode, secretOnPage, totpCode } from '../helpers/totp.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';
import { issueRecoveryCodes } from '../../src/domain/recovery-codes.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { alertText, enterCode, enterEmail, enterPassword, heading, silentAuthorization, startFlow } from './flow.js';

describe.each(engines)('TOTP second factor (%s)', (engine) => {
  const web = useBrowser();
  let idp: CredentialsServer;

  beforeAll(async () => {
    idp = await startCredentialsServer(engine, web.rp.url, [{ slug: 'wiki' }, { slug: 'vault', require_mfa: true }]);
  });
  afterAll(async () => {
    await idp?.close();
  });

  /** A user with a confirmed secret (confirmed with the previous step's code, so the current step is unused). */
  async function enrolledUser() {
    const user = await idp.user();
    const row = (await idp.store.users.findById(user.pk))!;
    const key = idp.settings.secrets.key;
    const secret = (await pendingTotpSecret(idp.store, row, key, true))!;
    await expect(confirmTotp(idp.store, user.pk, totpCode(secret, Date.now() - 30_000), key)).resolves.toBe('ok');
    const recoveryCodes = await issueRecoveryCodes(idp.store, user.pk, key);
    return { ...user, secret, recoveryCodes };
  }

  async function toMfaPage(slug: string, email: string) {
    const flow = await startFlow(web.page, idp.apps[slug]!);
    await enterEmail(web.page, email);
    await enterPassword(web.page, PASSWORD);
    return flow;
  }

  test('require_mfa: enrolment with QR code and secret, confirm, recovery codes once, then the callback', async () => {
    const user = await idp.user();
    const flow = await toMfaPage('vault', user.email);
    await expect(heading(web.page)).resolves.toBe('Set up two-step verification');
    await expect(web.page.locator('img.qr').getAttribute('src')).resolves.toMatch(/^data:image\/png;base64,/);
    const secret = await secretOnPage(web.page);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);

    await enterCode(web.page, otherStepCode(secret, Date.now() - 5 * 60_000)); // a stale code is refused, the same secret stays
    await expect(alertText(web.page)).resolves.toMatch(/not right/);
    await expect(secretOnPage(web.page)).resolves.toBe(secret);

    await enterCode(web.page, totpCode(secret));
    await expect(heading(web.page)).resolves.toBe('Save your recovery codes');
    const codes = await web.page.locator('ul.codes li').allTextContents();
    expect(codes).toHaveLength(10);
    codes.forEach((code) => expect(code.trim()).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/));
    // To copy (the text, and a Copy button where the clipboard is available) or to download as a file.
    await expect(web.page.getByLabel('As text').inputValue()).resolves.toContain(codes[0]!.trim());
    const download = await web.page.getByRole('link', { name: 'Download' }).getAttribute('href');
    expect(decodeURIComponent(download!.replace(/^data:text\/plain;charset=utf-8,/, '')).split('\n')).toEqual(
      expect.arrayContaining(codes.map((code) => code.trim())),
    );
    await web.page.getByRole('button', { name: /continue/ }).click();
    const tokens = await flow.finish();
    expect(tokens.id_token).toEqual(expect.any(String));

    // Stored encrypted and hashed: neither the secret nor a code is in the database in clear.
    const stored = (await idp.store.mfa.findTotp(user.pk))!;
    expect(stored.confirmed_at).toBeInstanceOf(Date);
    expect(stored.encrypted_secret).not.toContain(secret);
    expect(stored.encrypted_secret.startsWith('v2.')).toBe(true); // sealed with the totp key of src/domain/secrets.ts
    await expect(idp.store.mfa.recoveryCodesLeft(user.pk)).resolves.toBe(10);
  });

  test('require_mfa holds inside single sign-on: a session signed in with a password alone is asked again, prompt=none refused', async () => {
    const user = await idp.user();
    const wiki = await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await enterPassword(web.page, PASSWORD);
    expect((await wiki.finish()).claims()!.amr).toEqual(['pwd']);
    // The same browser's session, at the application that requires a second factor.
    expect((await silentAuthorization(web.page, idp.apps.vault!)).searchParams.get('error')).toBe('login_required');
    await startFlow(web.page, idp.apps.vault!);
    await expect(heading(web.page)).resolves.toBe('Sign in'); // not a code: the sign-in again, then enrolment
  });

  test('an enrolled user always gets the second step (even where MFA is not required) and signs in with a code', async () => {
    const user = await enrolledUser();
    const flow = await toMfaPage('wiki', user.email);
    await expect(heading(web.page)).resolves.toBe('Two-step verification');
    await enterCode(web.page, totpCode(user.secret));
    await expect(flow.finish()).resolves.toHaveProperty('id_token');
  });

  test('a wrong code is refused; a code already used is refused as a replay', async () => {
    const user = await enrolledUser();
    const code = totpCode(user.secret);
    let wrong = otherStepCode(user.secret, Date.now() + 5 * 60_000);
    if ([-30_000, 0, 30_000].some((shift) => totpCode(user.secret, Date.now() + shift) === wrong)) wrong = '999999';

    await toMfaPage('wiki', user.email);
    await enterCode(web.page, wrong);
    await expect(alertText(web.page)).resolves.toMatch(/not right/);
    await enterCode(web.page, code);
    await web.page.waitForURL((url) => url.href.startsWith(web.rp.url));

    // A second sign-in with the same code (same time step): refused.
    await web.context.clearCookies();
    await toMfaPage('wiki', user.email);
    await enterCode(web.page, code);
    await expect(alertText(web.page)).resolves.toBe('That code has already been used. Wait for the next one.');
    expect(web.page.url()).toContain('/if/flow/');
  });

  test('a recovery code replaces the TOTP code once, then it is spent', async () => {
    const user = await enrolledUser();
    const recovery = user.recoveryCodes[3]!;
    const flow = await toMfaPage('vault', user.email); // enrolled users are not asked to enrol again
    await expect(heading(web.page)).resolves.toBe('Two-step verification');
    await enterCode(web.page, recovery.toUpperCase());
    await expect(flow.finish()).resolves.toHaveProperty('id_token');
    await expect(idp.store.mfa.recoveryCodesLeft(user.pk)).resolves.toBe(9);

    await web.context.clearCookies();
    await toMfaPage('vault', user.email);
    await enterCode(web.page, recovery);
    await expect(alertText(web.page)).resolves.toMatch(/not right/);
  });

  test('the compare-and-set lets exactly one of two racing uses of a time step or recovery code through', async () => {
    const user = await enrolledUser();
    const key = idp.settings.secrets.key;
    const { verifyTotp } = await import('../../src/domain/totp.js');
    const { useRecoveryCode } = await import('../../src/domain/recovery-codes.js');
    const code = totpCode(user.secret);
    const results = await Promise.all([verifyTotp(idp.store, user.pk, code, key), verifyTotp(idp.store, user.pk, code, key)]);
    expect(results.sort()).toEqual(['ok', 'replayed']);
    const spent = await Promise.all([
      useRecoveryCode(idp.store, user.pk, user.recoveryCodes[0]!, key),
      useRecoveryCode(idp.store, user.pk, user.recoveryCodes[0]!, key),
    ]);
    expect(spent.sort()).toEqual([false, true]);
  });
});
