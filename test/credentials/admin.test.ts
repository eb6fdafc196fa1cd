/**
 * Admin endpoints: POST /users/{pk}/recovery/ (a one-time setup link, followed in the browser) and
 * DELETE /users/{pk}/mfa/ (removes TOTP, recovery codes and passkeys), with the API's usual error rules.
 */
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { totpCode } from '../helpers/totp.js';
import { createApiToken } from '../../src/domain/api-tokens.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';
import { issueRecoveryCodes } from '../../src/domain/recovery-codes.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from './credentials-server.js';
import { alertText, enterEmail, enterPassword, heading, startFlow } from './flow.js';

describe.each(engines)('credential admin endpoints (%s)', (engine) => {
  const web = useBrowser();
  let idp: CredentialsServer;
  let token: string;

  beforeAll(async () => {
    idp = await startCredentialsServer(engine, web.rp.url, [{ slug: 'wiki' }]);
    token = await idp.apiToken();
  });
  afterAll(async () => {
    await idp?.close();
  });

  const api = async (method: string, path: string, bearer = token) => {
    const response = await fetch(`${idp.url}/api/v3/core${path}`, { method, headers: { Authorization: `Bearer ${bearer}` } });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  test('POST recovery/ returns a one-time link; following it sets the password and verifies the e-mail, once', async () => {
    const user = await idp.user({ password: null });
    const { status, body } = await api('POST', `/users/${user.pk}/recovery/`);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['link']);
    expect(body.link).toMatch(new RegExp(`^${idp.url}/if/recovery/[A-Za-z0-9_-]{43}/$`));

    await web.page.goto(body.link);
    await web.page.goto(body.link); // opening it (a mail scanner, a reload) does not spend it
    await expect(heading(web.page)).resolves.toBe('Choose a new password');
    await web.page.getByLabel('New password', { exact: true }).fill('short');
    await web.page.getByLabel('Repeat the new password').fill('short');
    await web.page.getByRole('button', { name: 'Set password' }).click();
    await expect(alertText(web.page)).resolves.toContain('at least 8 characters');
    await web.page.getByLabel('New password', { exact: true }).fill('recovered passphrase');
    await web.page.getByLabel('Repeat the new password').fill('recovered passphrase');
    await web.page.getByRole('button', { name: 'Set password' }).click();
    await expect(heading(web.page)).resolves.toBe('Your password is set');
    expect((await idp.store.users.findById(user.pk))!.email_verified).toBe(true);

    const again = await web.page.goto(body.link);
    expect(again!.status()).toBe(404);
    await expect(heading(web.page)).resolves.toBe('This link is no longer valid');

    const flow = await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await enterPassword(web.page, 'recovered passphrase');
    await expect(flow.finish()).resolves.toHaveProperty('id_token');
  });

  test('DELETE mfa/ removes the TOTP secret, the recovery codes and the passkeys; the next sign-in has no second step', async () => {
    const user = await idp.user();
    const key = idp.settings.secrets.key;
    const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(user.pk))!, key, true))!;
    await confirmTotp(idp.store, user.pk, totpCode(secret), key);
    await issueRecoveryCodes(idp.store, user.pk, key);
    await idp.store.passkeys.add({
      id: `lost-${user.pk}`,
      user_id: user.pk,
      public_key: 'pQEC',
      sign_count: 0,
      transports: [],
      device_type: 'singleDevice',
      backed_up: false,
      name: 'Lost phone',
    });

    const { status, body } = await api('DELETE', `/users/${user.pk}/mfa/`);
    expect(status).toBe(204);
    expect(body).toBeUndefined();
    await expect(idp.store.mfa.findTotp(user.pk)).resolves.toBeUndefined();
    await expect(idp.store.mfa.recoveryCodesLeft(user.pk)).resolves.toBe(0);
    await expect(idp.store.passkeys.listForUser(user.pk)).resolves.toEqual([]);

    const flow = await startFlow(web.page, idp.apps.wiki!);
    await enterEmail(web.page, user.email);
    await enterPassword(web.page, PASSWORD);
    await expect(flow.finish()).resolves.toHaveProperty('id_token');
    await expect(api('DELETE', `/users/${user.pk}/mfa/`)).resolves.toEqual({ status: 204, body: undefined }); // nothing left: still 204
  });

  test('the usual errors: 404 unknown user, 401 without a valid token, 403 without users:write', async () => {
    await expect(api('POST', '/users/999999/recovery/')).resolves.toEqual({ status: 404, body: { detail: 'Not found.' } });
    await expect(api('DELETE', '/users/999999/mfa/')).resolves.toEqual({ status: 404, body: { detail: 'Not found.' } });
    const user = await idp.user();
    expect((await api('POST', `/users/${user.pk}/recovery/`, 'idp_not-a-token')).status).toBe(401);
    const readOnly = (await createApiToken(idp.store, { name: 'reader', scopes: ['users:read'] })).token;
    expect((await api('POST', `/users/${user.pk}/recovery/`, readOnly)).status).toBe(403);
    expect((await api('DELETE', `/users/${user.pk}/mfa/`, readOnly)).status).toBe(403);
  });
});
