/**
 * "Continue with {name}" in chromium, on both stores: the button on the sign-in page takes the person through a real
 * upstream (oidc-provider on localhost, the service on 127.0.0.1: two sites, their cookies apart) and back to the
 * application, signed in with an account made just in time; and an existing account is linked only after its
 * password is typed on the linking page.
 */
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { startOidcServer, PASSWORD, type OidcTestServer } from '../helpers/oidc-server.js';
import { startUpstreamProvider, type UpstreamProvider } from '../helpers/upstream-provider.js';
import { startFlow, heading, alertText } from '../credentials/flow.js';

const UPSTREAM_SECRET = 'upstream-client-secret-0123456789';

describe.each(engines)('Continue with an upstream provider in the browser (%s)', (engine) => {
  const web = useBrowser();
  let upstream: UpstreamProvider;
  let idp: OidcTestServer;

  beforeAll(async () => {
    upstream = await startUpstreamProvider();
    idp = await startOidcServer(engine, web.rp.url, [{ slug: 'wiki', sources: ['corp'] }], {
      overrides: {
        sources: [
          { slug: 'corp', type: 'oidc', name: 'Corp SSO', issuer: upstream.issuer, client_id: 'idp', client_secret: UPSTREAM_SECRET },
        ],
      },
    });
    upstream.register([{ client_id: 'idp', client_secret: UPSTREAM_SECRET, redirect_uris: [`${idp.url}/source/oauth/callback/corp/`] }]);
  });

  afterAll(async () => {
    await idp?.close();
    await upstream?.close();
  });

  test('the button signs a new person in through the upstream; the application gets tokens with amr fed', async () => {
    const email = `browser-${Date.now()}@corp.example`;
    upstream.signInAs(`browser-${Date.now()}`, { email, email_verified: true, name: 'Browser Person' });
    const flow = await startFlow(web.page, idp.apps.wiki!);
    await expect(heading(web.page)).resolves.toBe('Sign in');
    await web.page.getByRole('button', { name: 'Continue with Corp SSO' }).click();
    const tokens = await flow.finish();
    expect(tokens.claims()).toMatchObject({ amr: ['fed'], sub: (await idp.store.users.findByEmail(email))!.uuid });
  });

  test('an existing account is linked after its password, on the linking page', async () => {
    const local = await idp.user();
    upstream.signInAs(`linker-${Date.now()}`, { email: local.email, email_verified: true });
    const flow = await startFlow(web.page, idp.apps.wiki!);
    await web.page.getByRole('button', { name: 'Continue with Corp SSO' }).click();
    await expect(heading(web.page)).resolves.toBe('Link your account');
    await web.page.getByLabel('Password', { exact: true }).fill('wrong password');
    await web.page.getByRole('button', { name: 'Link and sign in' }).click();
    await expect(alertText(web.page)).resolves.toBe('That password is not right.');
    await web.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await web.page.getByRole('button', { name: 'Link and sign in' }).click();
    const tokens = await flow.finish();
    expect(tokens.claims()).toMatchObject({ sub: local.uuid, amr: ['fed', 'pwd'] });
  });
});
