/**
 * The sign-out confirmation (end-session without id_token_hint) has a Cancel: a plain link back to the application
 * that asked — its post_logout_redirect_uri, else its own start page — which ends nothing.
 */
import { useBrowser } from '../helpers/browser.js';
import { runFlow } from '../helpers/oidc-flow.js';
import { authorizationRequest, discover } from '../helpers/oidc-rp.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';

describe('Cancel on the sign-out confirmation', () => {
  const web = useBrowser();
  let idp: OidcTestServer;
  let loggedOutUrl: string;

  beforeAll(async () => {
    loggedOutUrl = web.rp.url.replace('/callback', '/logged-out');
    idp = await startOidcServer('pglite', web.rp.url, [
      { slug: 'wiki', name: 'Team Wiki', post_logout_redirect_uris: [loggedOutUrl] },
      { slug: 'crm', name: 'Sales CRM' },
    ]);
  });
  afterAll(async () => idp?.close());

  const endSession = (slug: string, params: Record<string, string>) =>
    `${idp.apps[slug]!.issuer}end-session/?${new URLSearchParams(params)}`;

  /** Whether the browser is still signed in: an authorization request comes back to the application, not to a sign-in page. */
  async function stillSignedIn(): Promise<boolean> {
    const app = idp.apps.crm!;
    const request = await authorizationRequest(await discover(app), app);
    await web.page.goto(request.url.href);
    await web.page.waitForURL((url) => url.href.startsWith(app.redirect_uri) || url.pathname.startsWith('/if/flow/'));
    return web.page.url().startsWith(app.redirect_uri);
  }

  test('with post_logout_redirect_uri: Cancel goes there and the session stays', async () => {
    const user = await idp.user();
    await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD });
    await web.page.goto(endSession('wiki', { client_id: idp.apps.wiki!.client_id, post_logout_redirect_uri: loggedOutUrl, state: 's1' }));
    await expect(web.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign out of all applications?');
    const cancel = web.page.getByRole('link', { name: 'Cancel and return to Team Wiki' });
    expect(await cancel.getAttribute('href')).toBe(loggedOutUrl);
    await cancel.click();
    await web.page.waitForURL(loggedOutUrl);
    expect(await stillSignedIn()).toBe(true);
  });

  test('without post_logout_redirect_uri: Cancel goes to the application start page', async () => {
    const user = await idp.user();
    await runFlow(web.page, idp.apps.crm!, { email: user.email, password: PASSWORD });
    await web.page.goto(endSession('crm', { client_id: idp.apps.crm!.client_id }));
    const cancel = web.page.getByRole('link', { name: 'Cancel and return to Sales CRM' });
    expect(await cancel.getAttribute('href')).toBe(`${new URL(web.rp.url).origin}/`);
    await cancel.click();
    await web.page.waitForURL(`${new URL(web.rp.url).origin}/`);
    expect(await stillSignedIn()).toBe(true);
  });

  test('with no application named, there is no link, only the advice to close the page; Sign out still works', async () => {
    const user = await idp.user();
    await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD });
    await web.page.goto(endSession('wiki', {}));
    await expect(web.page.getByRole('link', { name: /Cancel/ }).count()).resolves.toBe(0);
    await expect(web.page.locator('.secondary').textContent()).resolves.toContain('Close this page or go back');
    await web.page.getByRole('button', { name: 'Sign out' }).click();
    await expect(web.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('You are signed out');
    expect(await stillSignedIn()).toBe(false);
  });
});
