/**
 * The icon: every page links it, and /favicon.ico (which browsers ask for on any page, the engine's JSON ones too)
 * answers with an icon a browser may keep, instead of a 404 on every visit.
 */
import { startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';

let idp: OidcTestServer;
beforeAll(async () => {
  idp = await startOidcServer('pglite', 'http://127.0.0.1:1/callback', [{ slug: 'wiki' }]);
});
afterAll(async () => idp?.close());

test('/favicon.ico is an icon, kept by the browser for a week', async () => {
  const icon = await fetch(`${idp.url}/favicon.ico`);
  expect(icon.status).toBe(200);
  expect(icon.headers.get('content-type')).toBe('image/x-icon');
  expect(icon.headers.get('cache-control')).toBe('public, max-age=604800');
  const bytes = Buffer.from(await icon.arrayBuffer());
  expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]); // the ICO header: reserved 0, type 1 (icon)
  const head = await fetch(`${idp.url}/favicon.ico`, { method: 'HEAD' });
  expect(head.status).toBe(200);
});

test('the SVG icon is served as an image that can run nothing', async () => {
  const icon = await fetch(`${idp.url}/static/favicon.svg`);
  expect(icon.status).toBe(200);
  expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  expect(icon.headers.get('content-security-policy')).toBe("default-src 'none'");
  expect(icon.headers.get('cache-control')).toBe('public, max-age=604800');
  expect(await icon.text()).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
});

test('the pages link both icons, from our own origin', async () => {
  for (const path of ['/welcome/', '/application/o/wiki/end-session/success']) {
    const html = await (await fetch(`${idp.url}${path}`)).text();
    expect(html).toContain('<link rel="icon" href="/favicon.ico" sizes="32x32">');
    expect(html).toContain('<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">');
  }
});
