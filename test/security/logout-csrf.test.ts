/**
 * RP-initiated logout without id_token_hint (RP-Initiated Logout 1.0 §2): anyone can send a browser there,
 * so the service asks; only the page's own POST (bound to the session by the engine's xsrf value) ends the
 * session. With a valid hint it stays prompt-free (test/logout/rp-initiated.test.ts).
 */
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, formOf, httpSignIn, pkceRequest } from '../helpers/http-client.js';

const callback = 'http://127.0.0.1:1/callback';
let idp: OidcTestServer;

beforeAll(async () => {
  idp = await startOidcServer('pglite', callback, [{ slug: 'wiki' }]);
});
afterAll(async () => idp?.close());

/** Whether the browser is still signed in: a new authorization request comes straight back with a code. */
async function signedIn(http: CookieClient): Promise<boolean> {
  const landed = await http.follow(await http.request((await pkceRequest(idp.apps.wiki!, idp.url)).url.href), callback);
  return landed instanceof URL && landed.searchParams.has('code');
}

test('without id_token_hint: a confirmation page, no script; only its POST ends the session', async () => {
  const user = await idp.user();
  const http = new CookieClient();
  await httpSignIn(http, idp.apps.wiki!, idp.url, user.email, PASSWORD);
  expect(await signedIn(http)).toBe(true);

  const page = await http.request(`${idp.url}/application/o/wiki/end-session/`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('<h1>Sign out of all applications?</h1>');
  expect(page.text).not.toContain('<script');
  expect(page.headers.get('content-security-policy')).not.toContain('script-src');
  expect(await signedIn(http)).toBe(true); // opening the page changed nothing

  // A forged cross-site POST (no xsrf value from the page) ends nothing.
  const form = formOf(page);
  const forged = await http.request(form.action, { form: { logout: 'yes', xsrf: 'forged' } });
  expect(forged.status).toBe(400);
  expect(await signedIn(http)).toBe(true);

  const confirmed = await http.request(form.action, { form: { ...form.fields, logout: 'yes' } });
  expect([200, 303]).toContain(confirmed.status);
  expect(await signedIn(http)).toBe(false);
});
