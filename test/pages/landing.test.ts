/** The front door: `/` leads to a small page naming the service, its readiness and each application's discovery document. */
import { startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';

let idp: OidcTestServer;
beforeAll(async () => {
  idp = await startOidcServer('pglite', 'http://127.0.0.1:1/callback', [{ slug: 'wiki', name: 'Team <Wiki>' }, { slug: 'crm' }]);
});
afterAll(async () => idp?.close());

test('/ redirects to the landing page, not a bare Not Found', async () => {
  const root = await fetch(`${idp.url}/`, { redirect: 'manual' });
  expect(root.status).toBe(302);
  expect(new URL(root.headers.get('location')!, idp.url).pathname).toBe('/welcome/');
});

test('the landing page says the service is ready and links every discovery document (names escaped)', async () => {
  const page = await fetch(`${idp.url}/welcome/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toContain('text/html');
  expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  const html = await page.text();
  expect(html).toContain('<title>Identity service</title>');
  expect(html).toContain('Status: ready');
  expect(html).toContain('href="/-/health/ready/"');
  expect(html).toContain('Team &lt;Wiki&gt;');
  expect(html).not.toContain('Team <Wiki>');
  const links = [...html.matchAll(/href="([^"]+openid-configuration)"/g)].map((match) => match[1]!);
  expect(links).toEqual([idp.apps.wiki!.issuer, idp.apps.crm!.issuer].map((issuer) => `${issuer}.well-known/openid-configuration`));
  for (const link of links) expect((await fetch(link)).status).toBe(200);
});

test('the landing page says so when a dependency does not answer', async () => {
  await idp.db.close(); // the database goes away under the running service
  const html = await (await fetch(`${idp.url}/welcome/`)).text();
  expect(html).toContain('Status: unavailable — database not answering');
});
