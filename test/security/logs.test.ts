/**
 * Nothing secret reaches the log: a whole life of a user — password setup by mailed code, tokens, refresh,
 * UserInfo, an admin recovery link, a password sign-in, logout — logged at trace level, then every secret
 * it involved is searched for in the captured lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/logger.js';
import { startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, formOf, httpSignIn, pkceRequest, redeemCode, submit } from '../helpers/http-client.js';

const lines: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

let idp: OidcTestServer;
const callback = 'http://127.0.0.1:1/callback';

beforeAll(async () => {
  idp = await startOidcServer('pglite', callback, [{ slug: 'wiki' }], { logger: createLogger('trace', capture) });
});
afterAll(async () => idp?.close());

const mailedCode = (dir: string) => {
  const files = readdirSync(dir).sort();
  return /Your code: (\d{6})/.exec(readFileSync(path.join(dir, files.at(-1)!), 'utf8'))![1]!;
};

test('codes, link tokens, passwords, tokens, client secrets and cookies never reach the log', async () => {
  const app = idp.apps.wiki!;
  const secrets: Record<string, string> = { client_secret: app.client_secret };
  const user = await idp.user({ password: null });
  const http = new CookieClient();

  // Password setup by mailed code (no SMTP: the message is written to <data_dir>/mail/).
  const request = await pkceRequest(app, idp.url);
  const emailPage = await http.follow(await http.request(request.url.href), app.redirect_uri);
  if (emailPage instanceof URL) throw new Error('expected the sign-in page');
  const setupPage = await submit(http, emailPage, { email: user.email });
  expect(setupPage.text).toContain('Set your password');
  secrets.setup_code = mailedCode(path.join(idp.settings.data_dir, 'mail'));
  secrets.first_password = 'first password, long enough';
  const reached = await http.follow(
    await submit(http, setupPage, { code: secrets.setup_code, password: secrets.first_password, confirmation: secrets.first_password }),
    app.redirect_uri,
  );
  if (!(reached instanceof URL)) throw new Error(`setup did not finish: ${reached.text.slice(0, 200)}`);
  secrets.code = reached.searchParams.get('code')!;
  const tokens = await redeemCode(app, idp.url, { request, callback: reached });
  expect(tokens.status).toBe(200);
  Object.assign(secrets, {
    access_token: tokens.body.access_token,
    refresh_token: tokens.body.refresh_token,
    id_token: tokens.body.id_token,
  });

  const refreshed = await fetch(`${idp.url}/application/o/token/`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }).toString(),
  });
  secrets.rotated_refresh_token = (await refreshed.json()).refresh_token;
  expect(
    (await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.body.access_token}` } })).status,
  ).toBe(200);

  // An admin recovery link, opened and used.
  const { body } = await idp.api(`/api/v3/core/users/${user.pk}/recovery/`, { json: {} });
  secrets.link_token = new URL(body.link).pathname.split('/')[3]!;
  const linkPage = await http.request(body.link);
  expect(linkPage.status).toBe(200);
  secrets.second_password = 'second password, long enough';
  expect((await submit(http, linkPage, { password: secrets.second_password, confirmation: secrets.second_password })).status).toBe(200);

  // A password sign-in and a logout with the ID token as hint.
  const fresh = new CookieClient();
  const signIn = await httpSignIn(fresh, app, idp.url, user.email, secrets.second_password);
  const second = await redeemCode(app, idp.url, signIn);
  const logout = await fresh.request(`${idp.url}/application/o/wiki/end-session/?id_token_hint=${second.body.id_token}`);
  const confirm = formOf(logout);
  await fresh.request(confirm.action, { form: { ...confirm.fields, logout: 'yes' } });
  // The interaction cookies hold the interaction id, which is in the page URLs by design: their signatures are the secret.
  const cookies = [...http.cookies, ...fresh.cookies].filter((c) => !/^_interaction(_resume)?$/.test(c.name));
  expect(cookies.map((c) => c.name)).toEqual(expect.arrayContaining(['_session', '_session.sig']));
  for (const [i, cookie] of cookies.entries()) secrets[`cookie ${i} ${cookie.name}`] = cookie.value;

  const log = lines.join('');
  expect(lines.length).toBeGreaterThan(15);
  expect(log).toContain('"path":"/if/recovery/[redacted]/"');
  expect(log).toContain(`"user":"${user.uuid}"`); // the mail line names the user, nothing else
  for (const [name, value] of Object.entries(secrets)) {
    expect(value && value.length >= 6).toBe(true);
    if (log.includes(value)) throw new Error(`the log contains the ${name}`);
  }
});
