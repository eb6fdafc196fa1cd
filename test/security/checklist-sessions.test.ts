/**
 * Security checklist, browser-session part: sign-in forms refuse posts without their own interaction's CSRF
 * value (login CSRF), the session cookie is renewed at sign-in (fixation) and dead after logout, every cookie
 * is HttpOnly with SameSite (and Secure under an https base URL), and a TOTP code works only once.
 */
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { CookieClient, formOf, pkceRequest, submit, type HttpResponse } from '../helpers/http-client.js';
import { RecordingClient, cookieValue, firstPage, jwtClaims, redeem, signInWith, signedInAs } from '../helpers/checklist.js';
import { totpCode } from '../helpers/totp.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';

const CALLBACK = 'http://127.0.0.1:1/callback';

describe.each(engines)('security checklist: sessions (%s)', (engine) => {
  let idp: OidcTestServer;
  let wiki: TestApp;

  beforeAll(async () => {
    idp = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki' }]);
    wiki = idp.apps.wiki!;
  });
  afterAll(async () => idp?.close());

  /** The e-mail page of a new sign-in in `http`. */
  async function emailPage(http: CookieClient, extra: Record<string, string> = {}): Promise<HttpResponse> {
    const page = await firstPage(http, await pkceRequest(wiki, idp.url, extra), CALLBACK);
    if (page instanceof URL) throw new Error(`expected the e-mail page, went to ${page.href}`);
    return page;
  }

  /** A password post to the interaction of `page` with these fields (the page's own csrf only if given). */
  const postPassword = (http: CookieClient, page: HttpResponse, fields: Record<string, string>) =>
    http.request(formOf(page).action.replace(/email$/, 'password'), { form: fields });

  const uidOf = (page: HttpResponse) => /\/if\/flow\/wiki\/([^/]+)\//.exec(formOf(page).action)![1]!;

  function expectRefusedPage(answer: HttpResponse, status: number) {
    expect(answer.status).toBe(status);
    expect(answer.headers.get('location')).toBeNull();
    expect(answer.headers.get('content-type')).toContain('text/html');
    expect(answer.headers.getSetCookie().filter((c) => c.startsWith('_session'))).toEqual([]);
  }

  /**
   * Nobody is signed in through `page`'s interaction: resuming it (as the browser would after a successful
   * post) brings no code, and the jar has no session.
   */
  async function expectNobodySignedIn(http: CookieClient, page: HttpResponse) {
    const resumed = await http.follow(await http.request(`${idp.url}/application/o/wiki/authorize/${uidOf(page)}`), CALLBACK);
    expect(resumed instanceof URL && resumed.searchParams.has('code')).toBe(false);
    expect(await signedInAs(http, wiki, idp.url)).toBeUndefined();
  }

  describe('login CSRF', () => {
    test("the page's own csrf value signs in (the control for the refusals below)", async () => {
      const user = await idp.user();
      const http = new CookieClient();
      const page = await emailPage(http);
      const answer = await postPassword(http, page, { csrf: formOf(page).fields.csrf!, email: user.email, password: PASSWORD });
      expect(answer.status).toBe(303);
      // The resume URL expectNobodySignedIn opens after a refused post.
      expect(new URL(answer.headers.get('location')!, idp.url).pathname).toBe(`/application/o/wiki/authorize/${uidOf(page)}`);
      const landed = await http.follow(answer, CALLBACK);
      expect(landed instanceof URL && landed.searchParams.has('code')).toBe(true);
      expect(await signedInAs(http, wiki, idp.url)).toBe(user.uuid);
    });

    test('an e-mail post without the csrf field: 403 page', async () => {
      const http = new CookieClient();
      const page = await emailPage(http);
      const answer = await http.request(formOf(page).action, { form: { email: 'someone@example.com' } });
      expectRefusedPage(answer, 403);
      expect(answer.text).toContain('This form has expired');
    });

    test('a password post without the csrf field: 403 page, nobody signed in', async () => {
      const user = await idp.user();
      const http = new CookieClient();
      const page = await emailPage(http);
      expectRefusedPage(await postPassword(http, page, { email: user.email, password: PASSWORD }), 403);
      expectRefusedPage(await postPassword(http, page, { csrf: '', email: user.email, password: PASSWORD }), 403);
      await expectNobodySignedIn(http, page);
    });

    test.each(['email', 'password', 'setup', 'mfa', 'enrol', 'finish'])(
      'every form route refuses a post without csrf: /%s',
      async (route) => {
        const http = new CookieClient();
        const page = await emailPage(http);
        const answer = await http.request(formOf(page).action.replace(/email$/, route), {
          form: { email: 'someone@example.com', code: '123456' },
        });
        expectRefusedPage(answer, 403);
      },
    );

    test('the recovery link refuses a post without its csrf and stays unspent; the password is unchanged', async () => {
      const user = await idp.user();
      const link = (await idp.api(`/api/v3/core/users/${user.pk}/recovery/`, { method: 'POST' })).body.link as string;
      const http = new CookieClient();
      const forged = await http.request(link, { form: { password: 'attacker chosen 1', confirmation: 'attacker chosen 1' } });
      expectRefusedPage(forged, 403);
      expect((await http.request(link)).status).toBe(200);
      const signIn = await signInWith(new CookieClient(), await pkceRequest(wiki, idp.url), CALLBACK, user.email, PASSWORD);
      expect(signIn.searchParams.has('code')).toBe(true);
    });

    test("a password post with another interaction's csrf (same browser): 403 page, nobody signed in", async () => {
      const user = await idp.user();
      const http = new CookieClient();
      const first = await emailPage(http);
      const second = await emailPage(http);
      expect(formOf(second).fields.csrf).not.toBe(formOf(first).fields.csrf);
      expectRefusedPage(await postPassword(http, first, { csrf: formOf(second).fields.csrf!, email: user.email, password: PASSWORD }), 403);
      await expectNobodySignedIn(http, first);
    });

    test("a post with session 1's cookies and session 2's csrf is refused, either interaction URL; nobody signed in", async () => {
      const [attacker, victim] = [await idp.user(), new CookieClient()];
      const attackerJar = new CookieClient();
      const attackerPage = await emailPage(attackerJar);
      const victimPage = await emailPage(victim);
      const attackerCsrf = formOf(attackerPage).fields.csrf!;
      // The attacker's own form, auto-submitted by the victim's browser: the victim has no such interaction.
      const forged = await postPassword(victim, attackerPage, { csrf: attackerCsrf, email: attacker.email, password: PASSWORD });
      expect([400, 403]).toContain(forged.status);
      expectRefusedPage(forged, forged.status);
      // The attacker's csrf against the victim's own interaction.
      expectRefusedPage(await postPassword(victim, victimPage, { csrf: attackerCsrf, email: attacker.email, password: PASSWORD }), 403);
      await expectNobodySignedIn(victim, victimPage);
      await expectNobodySignedIn(attackerJar, attackerPage);
    });
  });

  describe('session id rotation', () => {
    test('a _session cookie planted before sign-in is replaced, and the planted one does not carry the new user', async () => {
      const [attacker, victim] = [await idp.user(), await idp.user()];
      const attackerJar = new CookieClient();
      await signInWith(attackerJar, await pkceRequest(wiki, idp.url), CALLBACK, attacker.email, PASSWORD);
      const planted = attackerJar.cookies.filter((c) => c.name.startsWith('_session'));
      expect(planted.map((c) => c.name).sort()).toEqual(['_session', '_session.sig']);

      const victimJar = new CookieClient();
      victimJar.cookies.push(...planted.map((c) => ({ ...c })));
      await signInWith(victimJar, await pkceRequest(wiki, idp.url, { prompt: 'login' }), CALLBACK, victim.email, PASSWORD);
      expect(cookieValue(victimJar, '_session')).toEqual(expect.any(String));
      expect(cookieValue(victimJar, '_session')).not.toBe(cookieValue(attackerJar, '_session'));
      expect(await signedInAs(victimJar, wiki, idp.url)).toBe(victim.uuid);
      expect(await signedInAs(attackerJar, wiki, idp.url)).not.toBe(victim.uuid);
    });

    test('signing in again (prompt=login) issues a new session id; the old one signs nobody in', async () => {
      const user = await idp.user();
      const http = new CookieClient();
      await signInWith(http, await pkceRequest(wiki, idp.url), CALLBACK, user.email, PASSWORD);
      const before = http.cookies.filter((c) => c.name.startsWith('_session')).map((c) => ({ ...c }));
      await signInWith(http, await pkceRequest(wiki, idp.url, { prompt: 'login' }), CALLBACK, user.email, PASSWORD);
      expect(cookieValue(http, '_session')).not.toBe(before.find((c) => c.name === '_session')!.value);
      expect(await signedInAs(http, wiki, idp.url)).toBe(user.uuid);

      const stale = new CookieClient();
      stale.cookies.push(...before);
      expect(await signedInAs(stale, wiki, idp.url)).toBeUndefined();
    });

    test('after logout the old session cookie signs nobody in', async () => {
      const user = await idp.user();
      const http = new CookieClient();
      const request = await pkceRequest(wiki, idp.url);
      const callback = await signInWith(http, request, CALLBACK, user.email, PASSWORD);
      const tokens = await redeem(idp.url, wiki, callback.searchParams.get('code')!, request.verifier);
      const saved = http.cookies.filter((c) => c.name.startsWith('_session')).map((c) => ({ ...c }));
      expect(saved).toHaveLength(2);

      const hint = new URLSearchParams({ id_token_hint: tokens.body.id_token, client_id: wiki.client_id });
      const page = await http.request(`${idp.url}/application/o/wiki/end-session/?${hint}`);
      expect(page.status).toBe(200);
      const done = await http.follow(await submit(http, page, {}));
      expect(done instanceof URL ? done.href : done.text).toContain('You are signed out');

      expect(await signedInAs(http, wiki, idp.url)).toBeUndefined();
      const stale = new CookieClient();
      stale.cookies.push(...saved);
      expect(await signedInAs(stale, wiki, idp.url)).toBeUndefined();
      expect(jwtClaims(tokens.body.id_token).sub).toBe(user.uuid);
    });
  });

  describe('cookie flags', () => {
    /** Sign-in, a second sign-in as someone else (account switch), sign-out: every kind of cookie the service sets. */
    async function everyCookie(server: OidcTestServer, http: RecordingClient) {
      const app = server.apps.wiki!;
      const [ada, bob] = [await server.user(), await server.user()];
      const request = await pkceRequest(app, server.url);
      const callback = await signInWith(http, request, CALLBACK, ada.email, PASSWORD);
      await signInWith(http, await pkceRequest(app, server.url, { prompt: 'login' }), CALLBACK, bob.email, PASSWORD);
      const confirm = await http.request(`${server.url}/application/o/wiki/end-session/`);
      await http.follow(await submit(http, confirm, {}));
      expect(callback.searchParams.get('code')).toEqual(expect.any(String));
      const names = new Set(http.setCookies.map((c) => c.slice(0, c.indexOf('='))));
      expect([...names]).toEqual(expect.arrayContaining(['_interaction', '_interaction_resume', '_session', '_session.sig']));
      return http.setCookies;
    }

    test('every Set-Cookie is HttpOnly with SameSite Lax (or None with Secure)', async () => {
      for (const cookie of await everyCookie(idp, new RecordingClient())) {
        expect(cookie).toMatch(/;\s*httponly(;|$)/i);
        const sameSite = /;\s*samesite=(\w+)/i.exec(cookie)?.[1]?.toLowerCase();
        expect([cookie, sameSite]).toEqual([cookie, expect.stringMatching(/^(lax|strict|none)$/)]);
        if (sameSite === 'none') expect(cookie).toMatch(/;\s*secure(;|$)/i);
      }
    });

    test('with an https base URL every cookie is also Secure', async () => {
      const base = 'https://id.example.com';
      const secure = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki' }], { overrides: { issuer: { base_url: base } } });
      try {
        const cookies = await everyCookie(secure, new RecordingClient({ from: base, to: secure.url }));
        for (const cookie of cookies) {
          expect([cookie, /;\s*secure(;|$)/i.test(cookie)]).toEqual([cookie, true]);
          expect([cookie, /;\s*httponly(;|$)/i.test(cookie)]).toEqual([cookie, true]);
        }
      } finally {
        await secure.close();
      }
    });
  });

  test('a TOTP code accepted once is refused in a new sign-in: "already been used", nobody signed in', async () => {
    const user = await idp.user();
    const key = idp.settings.secrets.key;
    const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(user.pk))!, key, true))!;
    // Confirmed with the previous step's code, so the current step is still unused.
    expect(await confirmTotp(idp.store, user.pk, totpCode(secret, Date.now() - 30_000), key)).toBe('ok');

    async function mfaPage(http: CookieClient) {
      const page = await submit(http, await submit(http, await emailPage(http), { email: user.email }), { password: PASSWORD });
      expect(page.text).toContain('<h1>Two-step verification</h1>');
      return page;
    }
    const code = totpCode(secret);
    const first = new CookieClient();
    const accepted = await first.follow(await submit(first, await mfaPage(first), { code }), CALLBACK);
    expect(accepted instanceof URL && accepted.searchParams.has('code')).toBe(true);

    const second = new CookieClient();
    const replayed = await submit(second, await mfaPage(second), { code });
    expect(replayed.status).toBe(400);
    expect(/role="alert">([^<]*)</.exec(replayed.text)?.[1]).toBe('That code has already been used. Wait for the next one.');
    expect(await signedInAs(second, wiki, idp.url)).toBeUndefined();
  });
});
