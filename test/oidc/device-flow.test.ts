/**
 * Device sign-in (RFC 8628) end to end: a device (openid-client's device functions) asks for a code, a person
 * types it at {base_url}/device/ in chromium, signs in through the usual pages (second factor, access group), sees
 * which application asks and allows or denies; the device's polling gets the tokens or access_denied. A code is
 * single use. Both stores.
 */
import * as client from 'openid-client';
import type { Page } from 'playwright-core';
import { engines } from '../helpers/database.js';
import { signIn, useBrowser } from '../helpers/browser.js';
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { totpCode } from '../helpers/totp.js';
import { PASSWORD, startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { enterCode, heading } from '../credentials/flow.js';
import { postToken } from '../helpers/oidc-rp.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';
import { DEVICE_CODE_GRANT } from '../../src/domain/applications.js';

const POLL_SECONDS = 2;
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

/** The device's side: openid-client configured from the application's discovery (no secret for a public one). */
async function deviceClient(app: TestApp): Promise<client.Configuration> {
  const auth = app.client_secret ? client.ClientSecretPost(app.client_secret) : client.None();
  return client.discovery(new URL(app.issuer), app.client_id, app.client_secret || undefined, auth, {
    execute: [client.allowInsecureRequests],
  });
}

/** The person's side: types the code (as they might: lower case, no dash) and lands on the confirmation. */
async function typeCode(page: Page, verificationUri: string, userCode: string) {
  await page.goto(verificationUri);
  await page.getByLabel('Code').fill(userCode.toLowerCase().replace('-', ''));
  await page.getByRole('button', { name: 'Continue' }).click();
}

describe.each(engines)('device sign-in (%s)', (engine) => {
  const web = useBrowser();
  let idp: OidcTestServer;

  beforeAll(async () => {
    idp = await startOidcServer(
      engine,
      web.rp.url,
      [
        { slug: 'tv', name: 'Living Room TV', client_type: 'public', grant_types: [DEVICE_CODE_GRANT, 'refresh_token'] },
        { slug: 'ops', name: 'Ops CLI', grant_types: [DEVICE_CODE_GRANT], access_group: 'operators', require_mfa: true },
        { slug: 'wiki' },
      ],
      {
        overrides: {
          redis: { url: REDIS_URL, prefix: uniquePrefix() },
          device_flow: { code_ttl_seconds: 600, poll_interval_seconds: POLL_SECONDS },
        },
        redisServices: true,
      },
    );
  });
  afterAll(async () => idp?.close());

  test('discovery advertises the shared device endpoint to applications with the grant only', async () => {
    const tv = await (await fetch(`${idp.apps.tv!.issuer}.well-known/openid-configuration`)).json();
    expect(tv.device_authorization_endpoint).toBe(`${idp.url}/application/o/device/`);
    expect(tv.grant_types_supported).toContain(DEVICE_CODE_GRANT);
    const wiki = await (await fetch(`${idp.apps.wiki!.issuer}.well-known/openid-configuration`)).json();
    expect(wiki.device_authorization_endpoint).toBeUndefined();
    expect(wiki.grant_types_supported).not.toContain(DEVICE_CODE_GRANT);
  });

  test('a public device: code typed in lower case without the dash, allowed, signed in; the device gets its tokens once', async () => {
    const user = await idp.user();
    const config = await deviceClient(idp.apps.tv!);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile email offline_access' });
    expect(started.user_code).toMatch(USER_CODE);
    expect(started.verification_uri).toBe(`${idp.url}/device/`);
    expect(started.verification_uri_complete).toBe(`${idp.url}/device/?user_code=${started.user_code}`);
    expect(started.interval).toBe(POLL_SECONDS);
    expect(started.expires_in).toBe(600);
    const polling = client.pollDeviceAuthorizationGrant(config, started);

    await typeCode(web.page, started.verification_uri, started.user_code);
    await expect(heading(web.page)).resolves.toBe('Allow Living Room TV?');
    await expect(web.page.locator('.device-code').textContent()).resolves.toBe(started.user_code);
    await web.page.getByRole('button', { name: 'Allow' }).click();
    await signIn(web.page, user.email, PASSWORD);
    await expect(heading(web.page)).resolves.toBe('Your device is signed in');

    const tokens = await polling;
    expect(tokens.claims()!.sub).toBe(user.uuid);
    expect(tokens.claims()!.aud).toBe(idp.apps.tv!.client_id);
    expect(tokens.scope?.split(' ')).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']));
    expect(tokens.refresh_token).toBeTruthy();
    const profile = await client.fetchUserInfo(config, tokens.access_token, user.uuid);
    expect(profile.email).toBe(user.email);

    // Its user code cannot be typed again.
    await typeCode(web.page, started.verification_uri, started.user_code);
    await expect(web.page.getByRole('alert').textContent()).resolves.toContain('That code has been used already.');
    // The device code is single use: polled again (after the interval), it is refused and its tokens end with it.
    await new Promise((resolve) => setTimeout(resolve, POLL_SECONDS * 1000));
    const again = await postToken(idp.url, {
      grant_type: DEVICE_CODE_GRANT,
      device_code: started.device_code,
      client_id: idp.apps.tv!.client_id,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    const userinfo = await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.status).toBe(401);
  });

  test('denied on the confirmation page: the device hears access_denied', async () => {
    const config = await deviceClient(idp.apps.tv!);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const polling = client.pollDeviceAuthorizationGrant(config, started).catch((error: unknown) => error);
    await typeCode(web.page, started.verification_uri, started.user_code);
    await web.page.getByRole('button', { name: 'Deny' }).click();
    await expect(heading(web.page)).resolves.toBe('Request denied');
    const refused = await polling;
    expect(refused).toBeInstanceOf(client.ResponseBodyError);
    expect((refused as client.ResponseBodyError).error).toBe('access_denied');
  });

  test('verification_uri_complete shows the code to confirm; a browser signed in already goes straight through', async () => {
    const user = await idp.user();
    const config = await deviceClient(idp.apps.tv!);
    const first = await client.initiateDeviceAuthorization(config, { scope: 'openid email' });
    const firstPolling = client.pollDeviceAuthorizationGrant(config, first);
    await web.page.goto(first.verification_uri_complete!);
    await expect(web.page.locator('.device-code').textContent()).resolves.toBe(first.user_code);
    await web.page.getByRole('button', { name: 'Allow' }).click();
    await signIn(web.page, user.email, PASSWORD);
    await expect(heading(web.page)).resolves.toBe('Your device is signed in');
    await firstPolling;

    const second = await client.initiateDeviceAuthorization(config, { scope: 'openid email' });
    const secondPolling = client.pollDeviceAuthorizationGrant(config, second);
    await web.page.goto(second.verification_uri_complete!);
    await expect(web.page.locator('.lead').textContent()).resolves.toContain(`as ${user.email}`);
    await web.page.getByRole('button', { name: 'Allow' }).click();
    await expect(heading(web.page)).resolves.toBe('Your device is signed in');
    expect((await secondPolling).claims()!.sub).toBe(user.uuid);
  });

  /** A user with a confirmed TOTP secret (confirmed with the previous step's code: the current one stays unused). */
  async function withSecondFactor(groups: string[] = []) {
    const user = await idp.user({ groups });
    const key = idp.settings.secrets.key;
    const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(user.pk))!, key, true))!;
    await confirmTotp(idp.store, user.pk, totpCode(secret, Date.now() - 30_000), key);
    return { ...user, secret };
  }

  test('a confidential device app: its required second factor and its access group apply as on any sign-in', async () => {
    const config = await deviceClient(idp.apps.ops!);
    const operator = await withSecondFactor([await idp.groupUuid('operators')]);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile' });
    const polling = client.pollDeviceAuthorizationGrant(config, started);
    await typeCode(web.page, started.verification_uri, started.user_code);
    await expect(heading(web.page)).resolves.toBe('Allow Ops CLI?');
    await web.page.getByRole('button', { name: 'Allow' }).click();
    await signIn(web.page, operator.email, PASSWORD);
    await enterCode(web.page, totpCode(operator.secret));
    await expect(heading(web.page)).resolves.toBe('Your device is signed in');
    const tokens = await polling;
    expect(tokens.claims()!.sub).toBe(operator.uuid);
    expect(tokens.claims()!.amr).toEqual(['pwd', 'otp']);
    expect(tokens.refresh_token).toBeUndefined(); // its grant_types have no refresh_token

    // Someone outside the access group: both factors, then told, and the device hears access_denied.
    await web.context.clearCookies();
    const outsider = await withSecondFactor();
    const refused = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const refusedPolling = client.pollDeviceAuthorizationGrant(config, refused).catch((error: unknown) => error);
    await typeCode(web.page, refused.verification_uri, refused.user_code);
    await web.page.getByRole('button', { name: 'Allow' }).click();
    await signIn(web.page, outsider.email, PASSWORD);
    await enterCode(web.page, totpCode(outsider.secret));
    await expect(heading(web.page)).resolves.toBe('You may not use Ops CLI');
    const answer = await refusedPolling;
    expect(answer).toBeInstanceOf(client.ResponseBodyError);
    expect((answer as client.ResponseBodyError).error).toBe('access_denied');
  });

  test('an application without the grant is refused at the device endpoint (unauthorized_client)', async () => {
    const wiki = idp.apps.wiki!;
    const response = await fetch(`${idp.url}/application/o/device/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: wiki.client_id, client_secret: wiki.client_secret, scope: 'openid' }).toString(),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('unauthorized_client');
  });
});
