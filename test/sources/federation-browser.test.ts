/**
 * "Continue with {name}" in chromium, on both stores: the button on the sign-in page takes the person through a real
 * upstream (oidc-provider on localhost, the service on 127.0.0.1: two sites, their cookies apart) and back to the
 * application, signed in with an account made just in time; an existing account is linked only after its password
 * is typed on the linking page; and a SAML identity provider (samlify, on localhost) answers with a cross-site POST
 * to the service, which a browser sends without the service's SameSite=Lax cookies.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSamlIdp, type SamlIdp } from '../helpers/saml-idp.js';
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { startOidcServer, PASSWORD, type OidcTestServer } from '../helpers/oidc-server.js';
import { startUpstreamProvider, type UpstreamProvider } from '../helpers/upstream-provider.js';
import { startFlow, heading, alertText } from '../credentials/flow.js';

const UPSTREAM_SECRET = 'upstream-client-secret-0123456789';

describe.each(engines)('Continue with an upstream provider in the browser (%s)', (engine) => {
  const web = useBrowser();
  let upstream: UpstreamProvider;
  let saml: SamlIdp;
  let idp: OidcTestServer;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'idp-saml-browser-'));

  beforeAll(async () => {
    [upstream, saml] = await Promise.all([startUpstreamProvider(), startSamlIdp()]);
    // The IdP's sign-on page on localhost: another site than the service's 127.0.0.1, as in real life.
    const metadata = path.join(dir, 'idp.xml');
    writeFileSync(metadata, saml.metadata.replace(saml.ssoUrl, saml.ssoUrl.replace('127.0.0.1', 'localhost')));
    idp = await startOidcServer(engine, web.rp.url, [{ slug: 'wiki', sources: ['corp', 'corp-saml'] }], {
      overrides: {
        sources: [
          { slug: 'corp', type: 'oidc', name: 'Corp SSO', issuer: upstream.issuer, client_id: 'idp', client_secret: UPSTREAM_SECRET },
          { slug: 'corp-saml', type: 'saml', name: 'Corp SAML', idp_metadata_file: metadata },
        ],
      },
    });
    upstream.register([{ client_id: 'idp', client_secret: UPSTREAM_SECRET, redirect_uris: [`${idp.url}/source/oauth/callback/corp/`] }]);
    saml.trust(await (await fetch(`${idp.url}/source/saml/corp-saml/metadata/`)).text());
  });

  afterAll(async () => {
    await idp?.close();
    await upstream?.close();
    await saml?.close();
    rmSync(dir, { recursive: true, force: true });
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

  test("a SAML identity provider's cross-site POST signs the person in: the service's cookies come back with its GET", async () => {
    const email = `saml-browser-${Date.now()}@corp.example`;
    saml.signInAs({ nameId: `saml-browser-${Date.now()}`, email, name: 'Saml Browser' });
    const flow = await startFlow(web.page, idp.apps.wiki!);
    await web.page.getByRole('button', { name: 'Continue with Corp SAML' }).click();
    await web.page.waitForURL((url) => url.hostname === 'localhost');
    await web.page.getByRole('button', { name: 'Continue' }).click();
    const tokens = await flow.finish();
    expect(tokens.claims()).toMatchObject({ amr: ['fed'], sub: (await idp.store.users.findByEmail(email))!.uuid });
  });
});
