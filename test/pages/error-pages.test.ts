/**
 * The one error renderer on the pages: an unexpected exception in a sign-in step is a readable 500 page (never
 * plain "Internal Server Error"), logged once with its stack, and the request log says 500; an oversized form
 * gets a readable 413 page; an unknown address a readable 404 page.
 */
import { captureLog } from '../helpers/log-capture.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, formOf, pkceRequest, submit, type HttpResponse } from '../helpers/http-client.js';

const { logger, lines } = captureLog();
let idp: OidcTestServer;
const callback = 'http://127.0.0.1:1/callback';
beforeAll(async () => {
  idp = await startOidcServer('pglite', callback, [{ slug: 'wiki' }], { logger });
});
afterAll(async () => idp?.close());

async function emailPage(http: CookieClient): Promise<HttpResponse> {
  const page = await http.follow(await http.request((await pkceRequest(idp.apps.wiki!, idp.url)).url.href));
  if (page instanceof URL) throw new Error('expected the sign-in page');
  return page;
}

const readablePage = (answer: HttpResponse, status: number) => {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toContain('text/html');
  expect(answer.text).toContain('<main class="card">');
  expect(answer.text).toContain('role="alert"');
  expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(answer.text).not.toMatch(/at \w+ \(|node_modules|Error:/); // no stack, no internals
};

test('an exception in a sign-in step: a readable 500 page, logged once with its stack, request log 500', async () => {
  const user = await idp.user();
  // A second factor sealed under another secrets.key cannot be opened: the step throws an unexpected error.
  await idp.store.mfa.savePendingTotp(user.pk, 'v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA');
  await idp.store.mfa.useTotpStep(user.pk, 1, true, new Date());
  const http = new CookieClient();
  const mfaPage = await submit(http, await submit(http, await emailPage(http), { email: user.email }), { password: PASSWORD });
  expect(mfaPage.text).toContain('Two-step verification');
  lines.length = 0;
  const answer = await submit(http, mfaPage, { code: '123456' });
  readablePage(answer, 500);
  expect(answer.text).toContain('Something went wrong');
  const failures = lines.filter((line) => line.msg === 'request failed');
  expect(failures).toHaveLength(1);
  expect(failures[0]!.err.stack).toContain('cannot be decrypted');
  expect(lines.find((line) => line.msg === 'request' && /\/mfa$/.test(line.path))).toMatchObject({ status: 500, method: 'POST' });
});

test('an oversized form: a readable 413 page', async () => {
  const http = new CookieClient();
  const form = formOf(await emailPage(http));
  const answer = await http.request(form.action, { form: { ...form.fields, email: 'x'.repeat(20_000) } });
  readablePage(answer, 413);
  expect(answer.text).toContain('too large');
});

test('an unknown address: a readable 404 page', async () => {
  const http = new CookieClient();
  readablePage(await http.request(`${idp.url}/no/such/page`), 404);
  readablePage(await http.request(`${idp.url}/application/o/no-such-app/jwks-or-else`), 404);
});

test('an expired sign-in page links back to the application; an unregistered redirect_uri page too, in plain words', async () => {
  const expired = await new CookieClient().request(`${idp.url}/if/flow/wiki/no-such-interaction/`);
  readablePage(expired, 400);
  expect(expired.text).toContain('This sign-in page has expired');
  expect(expired.text).toContain('<a class="button" href="http://127.0.0.1:1/">Back to App wiki</a>');

  const request = (await pkceRequest(idp.apps.wiki!, idp.url)).url;
  request.searchParams.set('redirect_uri', 'https://evil.example/callback');
  const refused = await new CookieClient().request(request.href);
  readablePage(refused, 400);
  expect(refused.text).toContain('asked to return to an address it has not registered');
  expect(refused.text).not.toContain('redirect_uri did not match');
  expect(refused.text).not.toContain('evil.example');
  expect(refused.text).toContain('href="http://127.0.0.1:1/">Back to App wiki</a>');
});
