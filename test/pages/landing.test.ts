/**
 * The front door: `/` leads to a small page naming the service, its readiness, and only the applications the
 * operator made public (`landing.public_applications`), each with its discovery document.
 */
import { startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { loadSettings, ConfigError } from '../../src/settings/load.js';

const callback = 'http://127.0.0.1:1/callback';
let idp: OidcTestServer;
let quiet: OidcTestServer;
beforeAll(async () => {
  const apps = [
    { slug: 'wiki', name: 'Team <Wiki>' },
    { slug: 'crm', name: 'Sales CRM' },
    { slug: 'hr', name: 'People' },
  ];
  [idp, quiet] = await Promise.all([
    startOidcServer('pglite', callback, apps, { overrides: { landing: { public_applications: ['hr', 'wiki'] } } }),
    startOidcServer('pglite', callback, apps),
  ]);
});
afterAll(async () => Promise.all([idp?.close(), quiet?.close()]));

test('/ redirects to the landing page, not a bare Not Found', async () => {
  const root = await fetch(`${idp.url}/`, { redirect: 'manual' });
  expect(root.status).toBe(302);
  expect(new URL(root.headers.get('location')!, idp.url).pathname).toBe('/welcome/');
});

test('the landing page says the service is ready and names the public applications only, in their order (names escaped)', async () => {
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
  expect(html).toContain('People');
  expect(html).not.toContain('Sales CRM');
  expect(html).not.toContain('/application/o/crm/');
  // Each name leads to the application itself (the origin of its redirect URI).
  expect(html).toContain('<a href="http://127.0.0.1:1/">People</a>');
  const links = [...html.matchAll(/href="([^"]+openid-configuration)"/g)].map((match) => match[1]!);
  expect(links).toEqual([idp.apps.hr!.issuer, idp.apps.wiki!.issuer].map((issuer) => `${issuer}.well-known/openid-configuration`));
  for (const link of links) expect((await fetch(link)).status).toBe(200);
});

test('by default the page names no application to an anonymous visitor', async () => {
  const html = await (await fetch(`${quiet.url}/welcome/`)).text();
  expect(html).toContain('Status: ready');
  for (const name of ['Wiki', 'Sales CRM', 'People', 'openid-configuration', '/application/o/']) expect(html).not.toContain(name);
});

test('landing.public_applications must name applications: an unknown slug stops the start with one line', async () => {
  const overrides = {
    applications: [{ slug: 'wiki', name: 'Wiki', client_id: 'wiki', client_secret: 's'.repeat(16), redirect_uris: [callback] }],
  };
  expect((await loadSettings({ overrides, readOnly: true })).landing.public_applications).toEqual([]);
  const error = await loadSettings({
    overrides: { ...overrides, landing: { public_applications: ['wiki', 'payroll'] } },
    readOnly: true,
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toBe(
    'config: landing.public_applications[1] "payroll" is not the slug of an application in applications[]',
  );
});

test('the landing page says so when a dependency does not answer', async () => {
  await idp.db.close(); // the database goes away under the running service
  const html = await (await fetch(`${idp.url}/welcome/`)).text();
  expect(html).toContain('Status: unavailable — database not answering');
});
