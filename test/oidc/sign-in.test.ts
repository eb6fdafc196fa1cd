/** The browser sign-in through the real pages, with openid-client as the relying party. */
import * as jose from 'jose';
import * as client from 'openid-client';
import { engines } from '../helpers/database.js';
import { signIn, useBrowser, waitForCallback } from '../helpers/browser.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { authorizationRequest, discover } from '../helpers/oidc-rp.js';
import { runFlow, tokensOf } from '../helpers/oidc-flow.js';

describe.each(engines)('OIDC sign-in (%s)', (engine) => {
  const web = useBrowser({ freshPerTest: true }); // virtual authenticators and page listeners outlive cleared cookies
  let idp: OidcTestServer;

  beforeAll(async () => {
    idp = await startOidcServer(engine, web.rp.url, [{ slug: 'wiki' }, { slug: 'crm', access_group: 'crm-users' }]);
  });
  afterAll(async () => {
    await idp?.close();
  });

  /** Opens the app's authorization URL and stops on the Email page. */
  async function openLoginPage(slug = 'wiki') {
    const app = idp.apps[slug]!;
    const request = await authorizationRequest(await discover(app), app);
    const response = await web.page.goto(request.url.href);
    expect(web.page.url()).toMatch(new RegExp(`/if/flow/${slug}/[^/]+/$`));
    return { request, response: response! };
  }

  test('signs in through Email then Password and returns valid tokens with the claims', async () => {
    const user = await idp.user({ name: 'Ada King Lovelace', attributes: { first_name: 'Ada', last_name: 'Lovelace' } });
    const app = idp.apps.wiki!;
    const flow = await runFlow(web.page, app, { email: user.email, password: PASSWORD });
    expect(flow.sawLoginPage).toBe(true);
    expect(flow.callback.searchParams.get('state')).toBe(flow.request.state);

    const tokens = await tokensOf(flow);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(300);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.scope!.split(' ').sort()).toEqual(['email', 'openid', 'profile']);

    const jwks = jose.createRemoteJWKSet(new URL(`${app.issuer}jwks/`));
    const { payload, protectedHeader } = await jose.jwtVerify(tokens.id_token!, jwks, { issuer: app.issuer, audience: app.client_id });
    expect(protectedHeader.alg).toBe('RS256');
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload).toMatchObject({
      sub: user.uuid,
      name: 'Ada King Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      email: user.email,
      email_verified: false,
      picture: `${idp.url}/avatars/${user.uuid}.svg`,
      nonce: flow.request.nonce,
    });
    expect(payload.exp! - payload.iat!).toBe(300);
    expect((await idp.store.users.findById(user.pk))!.last_login).toBeInstanceOf(Date);

    // UserInfo through the shared path returns the same claims.
    const userinfo = await client.fetchUserInfo(flow.config, tokens.access_token, user.uuid);
    expect(userinfo).toMatchObject({
      sub: user.uuid,
      name: 'Ada King Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      email: user.email,
      email_verified: false,
    });
    const avatar = await fetch(String(payload.picture));
    expect(avatar.status).toBe(200);
    expect(avatar.headers.get('content-type')).toContain('image/svg+xml');
  });

  test('scopes limit the claims; given/family names fall back to splitting name; https avatars are kept', async () => {
    const user = await idp.user({ name: 'Grace Brewster Hopper', attributes: { avatar: 'https://img.example.com/g.png' } });
    const flow = await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD, scope: 'openid profile' });
    const tokens = await tokensOf(flow);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      sub: user.uuid,
      given_name: 'Grace',
      family_name: 'Brewster Hopper',
      picture: 'https://img.example.com/g.png',
    });
    expect(claims).not.toHaveProperty('email');
    const userinfo = await client.fetchUserInfo(flow.config, tokens.access_token, user.uuid);
    expect(userinfo).not.toHaveProperty('email');
  });

  test('the pages: labels, CSP with scripts from our origin only, no-store, readable with the stylesheet', async () => {
    const { response } = await openLoginPage();
    const headers = response.headers();
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['content-security-policy']).toContain("script-src 'self';");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['cache-control']).toBe('no-store');
    // Only the passkey script and the WebAuthn library, as files of ours: no inline script.
    const scripts = await web.page
      .locator('script')
      .evaluateAll((nodes) => nodes.map((node) => [node.getAttribute('src'), node.textContent]));
    expect(scripts).toEqual([
      ['/static/webauthn.js', ''],
      ['/static/passkey.js', ''],
    ]);
    for (const [src] of scripts) expect((await fetch(`${idp.url}${src}`)).headers.get('content-type')).toContain('text/javascript');
    await expect(web.page.getByLabel('Email', { exact: true }).getAttribute('type')).resolves.toBe('email');
    const css = await fetch(`${idp.url}/static/style.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
  });

  test('a wrong password and an unknown e-mail get the same visible error, on the page', async () => {
    const user = await idp.user();
    await openLoginPage();
    await signIn(web.page, user.email, 'wrong password!');
    await expect(web.page.getByRole('alert').textContent()).resolves.toBe('Incorrect e-mail or password.');
    expect(web.page.url()).toContain('/if/flow/wiki/');
    const known = await web.page.content();

    await openLoginPage();
    await signIn(web.page, 'nobody-here@example.com', 'wrong password!');
    await expect(web.page.getByRole('alert').textContent()).resolves.toBe('Incorrect e-mail or password.');
    // Apart from the e-mail, the interaction id and its CSRF token, the two pages are identical.
    const normalise = (html: string, email: string) =>
      html
        .replaceAll(email, 'EMAIL')
        .replace(/\/if\/flow\/wiki\/[^/"]+/g, 'FLOW')
        .replace(/%2Fif%2Fflow%2Fwiki%2F[^%"]+/g, 'FLOW') // the language switcher's way back
        .replace(/name="csrf" value="[^"]+"/, 'CSRF');
    expect(normalise(await web.page.content(), 'nobody-here@example.com')).toBe(normalise(known, user.email));
  });

  // Spec §1 (issue #4): the full setup flow is tested in test/credentials/password-setup.test.ts.
  test('a user without a password is sent to the password-setup page', async () => {
    const user = await idp.user({ password: null });
    await openLoginPage();
    await web.page.getByLabel('Email', { exact: true }).fill(user.email);
    await web.page.getByRole('button', { name: 'Continue' }).click();
    await expect(web.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Set your password');
  });

  /** Fills the first page's two fields and presses Continue, as a password manager and its user do. */
  async function fillFirstPage(email: string, password: string) {
    await web.page.getByLabel('Email', { exact: true }).fill(email);
    await web.page.locator('form[action$="/email"]').getByLabel('Password', { exact: true }).fill(password);
    await web.page.getByRole('button', { name: 'Continue' }).click();
  }

  test('e-mail and password on the first page sign in at once: no password page, the same tokens', async () => {
    const user = await idp.user();
    const app = idp.apps.wiki!;
    const { request } = await openLoginPage();
    const posted: string[] = [];
    web.page.on('request', (r) => r.method() === 'POST' && posted.push(new URL(r.url()).pathname.replace(/^.*\//, '')));
    await fillFirstPage(user.email, PASSWORD);
    const callback = await waitForCallback(web.page, app.redirect_uri);
    // ('options': the page's passkey autofill asks for its challenge as it loads.)
    expect(posted.filter((name) => name !== 'options')).toEqual(['email']);
    const tokens = await tokensOf({ config: await discover(app), request, callback, sawLoginPage: true });
    expect(tokens.claims()).toMatchObject({ sub: user.uuid, email: user.email });
    expect((await idp.store.users.findById(user.pk))!.last_login).toBeInstanceOf(Date);
  });

  test('a wrong password on the first page: the password page with the same error, for known and unknown e-mails', async () => {
    const user = await idp.user();
    await openLoginPage();
    await fillFirstPage(user.email, 'wrong password!');
    await expect(web.page.getByRole('alert').textContent()).resolves.toBe('Incorrect e-mail or password.');
    await expect(web.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Enter your password');
    const known = await web.page.content();

    await openLoginPage();
    await fillFirstPage('nobody-there@example.com', 'wrong password!');
    await expect(web.page.getByRole('alert').textContent()).resolves.toBe('Incorrect e-mail or password.');
    const normalise = (html: string, email: string) =>
      html
        .replaceAll(email, 'EMAIL')
        .replace(/\/if\/flow\/wiki\/[^/"]+/g, 'FLOW')
        .replace(/%2Fif%2Fflow%2Fwiki%2F[^%"]+/g, 'FLOW') // the language switcher's way back
        .replace(/name="csrf" value="[^"]+"/, 'CSRF');
    expect(normalise(await web.page.content(), 'nobody-there@example.com')).toBe(normalise(known, user.email));
    // The right password from the password page still signs in.
    await openLoginPage();
    await fillFirstPage(user.email, 'wrong again!');
    await signInOnPasswordPage(PASSWORD);
    await waitForCallback(web.page, idp.apps.wiki!.redirect_uri);
  });

  test('a user without a password who types one on the first page still gets the password-setup page', async () => {
    const user = await idp.user({ password: null });
    await openLoginPage();
    await fillFirstPage(user.email, 'a guess at a password');
    await expect(web.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Set your password');
  });

  async function signInOnPasswordPage(password: string) {
    const form = web.page.locator('form[action$="/password"]');
    await form.getByLabel('Password', { exact: true }).fill(password);
    await form.getByRole('button', { name: 'Sign in' }).click();
  }

  test('an inactive user cannot sign in', async () => {
    const user = await idp.user({ is_active: false });
    await openLoginPage();
    await signIn(web.page, user.email, PASSWORD);
    await expect(web.page.getByRole('alert').textContent()).resolves.toBe('Incorrect e-mail or password.');
  });

  test('a form post with a foreign CSRF token is refused', async () => {
    const user = await idp.user();
    await openLoginPage();
    const action = new URL('email', web.page.url()).href;
    const response = await web.context.request.post(action, { form: { csrf: 'forged', email: user.email }, maxRedirects: 0 });
    expect(response.status()).toBe(403);
  });

  test('outside the access group: the login path ends with access_denied at the application', async () => {
    const user = await idp.user();
    const flow = await runFlow(web.page, idp.apps.crm!, { email: user.email, password: PASSWORD });
    expect(flow.callback.searchParams.get('error')).toBe('access_denied');
    expect(flow.callback.searchParams.get('state')).toBe(flow.request.state);
    expect(flow.callback.searchParams.has('code')).toBe(false);
  });

  test('SSO: signed in to one app, a second app signs in without a login page', async () => {
    const user = await idp.user({ groups: [await idp.groupUuid('crm-users')] });
    const first = await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD });
    expect((await tokensOf(first)).claims()!.sub).toBe(user.uuid);

    const second = await runFlow(web.page, idp.apps.crm!, {});
    expect(second.sawLoginPage).toBe(false);
    const tokens = await tokensOf(second);
    expect(tokens.claims()).toMatchObject({ sub: user.uuid, iss: idp.apps.crm!.issuer, aud: idp.apps.crm!.client_id });
  });

  test('SSO outside the access group: access_denied without a login page', async () => {
    const user = await idp.user();
    await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD });
    const second = await runFlow(web.page, idp.apps.crm!, {});
    expect(second.sawLoginPage).toBe(false);
    expect(second.callback.searchParams.get('error')).toBe('access_denied');
  });

  test('a member of the access group signs in on the login path', async () => {
    const user = await idp.user({ groups: [await idp.groupUuid('crm-users')] });
    const flow = await runFlow(web.page, idp.apps.crm!, { email: user.email, password: PASSWORD });
    expect(flow.callback.searchParams.get('code')).toEqual(expect.any(String));
  });

  test("a deactivated user's tokens stop working: UserInfo 401, refresh invalid_grant", async () => {
    const user = await idp.user();
    const flow = await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD });
    const tokens = await tokensOf(flow);
    await idp.store.users.update(user.pk, { is_active: false });

    const userinfo = await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.status).toBe(401);
    expect(userinfo.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    await expect(client.refreshTokenGrant(flow.config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('UserInfo without a valid token: 401 with WWW-Authenticate Bearer error="invalid_token"', async () => {
    for (const headers of [{ Authorization: 'Bearer not-a-token' }, {} as Record<string, string>]) {
      const response = await fetch(`${idp.url}/application/o/userinfo/`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
      expect(await response.json()).toMatchObject({ error: 'invalid_token' });
    }
  });

  test('the sign-in page of an unknown interaction says it expired', async () => {
    const response = await web.page.goto(`${idp.url}/if/flow/wiki/not-a-real-uid/`);
    expect(response!.status()).toBe(400);
    await expect(web.page.getByRole('alert').textContent()).resolves.toContain('sign in again');
  });

  void waitForCallback;
});
