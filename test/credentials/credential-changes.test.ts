/**
 * Every credential change follows one rule (src/domain/credential-changes.ts): a password set by an administrator
 * (set_password), with a recovery link, with a setup code, with a reset code or on the account page, and second
 * factors removed by an administrator (DELETE …/mfa/). Over HTTP, with the real mail path (BullMQ, the mail
 * worker, an SMTP listener) and a real backchannel receiver: the session signed in before the change is over — its
 * refresh token gets invalid_grant, its access token fails UserInfo, prompt=none answers login_required — its
 * application hears a logout token with the user's sub and that session's sid, and the mailbox gets a notice.
 */
import * as jose from 'jose';
import { engines } from '../helpers/database.js';
import { codeIn, startSmtpCapture, type CapturedMail, type SmtpCapture } from '../helpers/smtp.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { logoutTokenOf, verifyLogoutToken } from '../helpers/logout-token.js';
import { postToken } from '../helpers/oidc-rp.js';
import { CookieClient, httpSignIn, pkceRequest, redeemCode, submit, type HttpResponse } from '../helpers/http-client.js';
import { privateRedis } from '../helpers/redis.js';
import { PASSWORD, startCredentialsServer, type CredentialsServer } from './credentials-server.js';

const CALLBACK = 'http://127.0.0.1:9/callback'; // never requested: the client stops at the redirect
const NEW_PASSWORD = 'an entirely new passphrase';

const subjectOf = (mail: CapturedMail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1]?.trim();
const bodyOf = (mail: CapturedMail) =>
  mail.raw
    .split(/\r?\n\r?\n/)
    .slice(1)
    .join('\n')
    .replace(/=\r?\n/g, '');

describe.each(engines)('credential changes end every session (%s)', (engine) => {
  let smtp: SmtpCapture;
  let backchannel: Receiver;
  let idp: CredentialsServer;

  beforeAll(async () => {
    [smtp, backchannel] = await Promise.all([startSmtpCapture(), startReceiver()]);
    idp = await startCredentialsServer(engine, CALLBACK, [{ slug: 'wiki', backchannel_logout_uri: `${backchannel.url}/bc` }], {
      mail: { smtp_url: smtp.url, from: 'IdP <idp@example.com>' },
      rate_limits: { ip_per_minute: 1000 },
      webhooks: { allow_insecure_loopback: true }, // the backchannel receiver is on 127.0.0.1
    });
  });
  afterAll(async () => {
    await idp?.close();
    await smtp?.close();
    await backchannel?.close();
  });

  const wiki = () => idp.apps.wiki!;

  /** A browser signed in to wiki before the change: its cookies, tokens, and the sid wiki saw. */
  async function signedInBefore(email: string) {
    const http = new CookieClient();
    const { status, body } = await redeemCode(wiki(), idp.url, await httpSignIn(http, wiki(), idp.url, email, PASSWORD));
    expect(status).toBe(200);
    const sid = jose.decodeJwt(body.id_token).sid as string;
    expect(sid).toEqual(expect.any(String));
    // It works before the change, so the checks after it can fail.
    expect((await silentAuthorization(http)).searchParams.get('code')).toEqual(expect.any(String));
    return { http, sid, accessToken: body.access_token as string, refreshToken: body.refresh_token as string };
  }

  async function silentAuthorization(http: CookieClient): Promise<URL> {
    const request = await pkceRequest(wiki(), idp.url, { prompt: 'none' });
    const landed = await http.follow(await http.request(request.url.href), CALLBACK);
    if (!(landed instanceof URL)) throw new Error(`prompt=none did not come back: ${landed.status}`);
    return landed;
  }

  /** The logout tokens wiki received for `sub`, once `count` have arrived. */
  async function logoutTokensFor(sub: string, count: number) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const hits = backchannel.received.filter((hit) => jose.decodeJwt(logoutTokenOf(hit)).sub === sub);
      if (hits.length >= count) return Promise.all(hits.map((hit) => verifyLogoutToken(hit, wiki(), sub)));
      if (Date.now() > deadline) throw new Error(`${hits.length} of ${count} logout tokens for ${sub}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The session from before is over everywhere, its application heard it with its sid, and a notice arrived. */
  async function expectEnded(user: { uuid: string; email: string }, before: Awaited<ReturnType<typeof signedInBefore>>, subject: string) {
    const refreshed = await postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: before.refreshToken,
      client_id: wiki().client_id,
      client_secret: wiki().client_secret,
    });
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const userinfo = await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${before.accessToken}` } });
    expect(userinfo.status).toBe(401);
    const silent = await silentAuthorization(before.http);
    expect(silent.searchParams.get('error')).toBe('login_required');
    expect(silent.searchParams.get('code')).toBeNull();

    const [token] = await logoutTokensFor(user.uuid, 1);
    expect(token).toMatchObject({ sub: user.uuid, sid: before.sid });
    const notice = await smtp.waitFor(user.email);
    expect(subjectOf(notice)).toBe(subject);
    expect(bodyOf(notice)).not.toMatch(/\d{6}|https?:|\/if\//); // no code, no link
    return bodyOf(notice);
  }

  const api = (path: string, init: { method?: string; json?: unknown } = {}) => idp.api(`/api/v3/core${path}`, init);

  test('set_password by an administrator', async () => {
    const user = await idp.user();
    const before = await signedInBefore(user.email);
    expect(await api(`/users/${user.pk}/set_password/`, { json: { password: NEW_PASSWORD } })).toEqual({ status: 204, body: undefined });
    const text = await expectEnded(user, before, 'Your password was changed');
    expect(text).toContain('by an administrator. You were signed out everywhere.');
    const { rows } = await idp.store.audit.list({ user: user.uuid, action: 'password.set' }, { offset: 0, limit: 5 });
    expect(rows[0]).toMatchObject({ actor_type: 'api_token', details: { replaced: true, sessions_ended: true, notice: true } });
  });

  test('a recovery link', async () => {
    const user = await idp.user();
    const before = await signedInBefore(user.email);
    const { body } = await api(`/users/${user.pk}/recovery/`, { method: 'POST' });
    const http = new CookieClient();
    const form = await http.request(body.link);
    expect(form.status).toBe(200);
    const done = await submit(http, form, { password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    expect(done.text).toContain('Your password is set');
    await expectEnded(user, before, 'Your password was changed');
  });

  test('a setup code: the first password of a user who had none', async () => {
    const user = await idp.user();
    const before = await signedInBefore(user.email);
    // Signed in without a password, as a passkey user is: the password goes, the session stays.
    await idp.db.database.db.updateTable('users').set({ password_hash: null }).where('id', '=', user.pk).execute();

    const http = new CookieClient();
    const request = await pkceRequest(wiki(), idp.url);
    const emailPage = (await http.follow(await http.request(request.url.href), CALLBACK)) as HttpResponse;
    const setupPage = await submit(http, emailPage, { email: user.email });
    expect(setupPage.text).toContain('Set your password');
    const code = codeIn(await smtp.waitFor(user.email));
    const callback = await http.follow(
      await submit(http, setupPage, { code, password: NEW_PASSWORD, confirmation: NEW_PASSWORD }),
      CALLBACK,
    );
    expect(callback instanceof URL && callback.searchParams.get('code')).toEqual(expect.any(String));

    const text = await expectEnded(user, before, 'A password was set for your account');
    expect(text).toContain('a password was set for your account');
    // The sign-in that set it goes on in its own, new session.
    expect((await silentAuthorization(http)).searchParams.get('code')).toEqual(expect.any(String));
  });

  test('a reset code ("Forgot your password?")', async () => {
    const user = await idp.user();
    const before = await signedInBefore(user.email);
    const http = new CookieClient();
    const request = await pkceRequest(wiki(), idp.url);
    const emailPage = (await http.follow(await http.request(request.url.href), CALLBACK)) as HttpResponse;
    const passwordPage = await submit(http, emailPage, { email: user.email });
    const forgotHref = /href="([^"]*\/forgot)"/.exec(passwordPage.text)![1]!;
    const forgotPage = await http.request(new URL(forgotHref, passwordPage.url).href);
    const resetPage = await submit(http, forgotPage, { email: user.email });
    const code = codeIn(await smtp.waitFor(user.email));
    const callback = await http.follow(
      await submit(http, resetPage, { code, password: NEW_PASSWORD, confirmation: NEW_PASSWORD }),
      CALLBACK,
    );
    expect(callback instanceof URL && callback.searchParams.get('code')).toEqual(expect.any(String));
    const text = await expectEnded(user, before, 'Your password was changed');
    expect(text).toContain('You were signed out everywhere else.');
  });

  test('the account page: the other sessions end, the browser that changed it stays', async () => {
    const user = await idp.user();
    const before = await signedInBefore(user.email);
    const http = new CookieClient();
    const signIn = (await http.follow(await http.request(`${idp.url}/account/`))) as HttpResponse;
    const passwordPage = await submit(http, signIn, { email: user.email });
    const page = (await http.follow(await submit(http, passwordPage, { password: PASSWORD }))) as HttpResponse;
    expect(page.text).toContain('<h1>Your account</h1>');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const changed = await http.follow(
      await http.request(`${idp.url}/account/password`, {
        form: { csrf, current: PASSWORD, password: NEW_PASSWORD, confirmation: NEW_PASSWORD },
      }),
    );
    expect((changed as HttpResponse).text).toContain('Your password was changed. Your other sessions were signed out.');
    const text = await expectEnded(user, before, 'Your password was changed');
    expect(text).toContain('on your account page. Your other sessions were signed out.');
    expect(((await http.follow(await http.request(`${idp.url}/account/`))) as HttpResponse).text).toContain('<h1>Your account</h1>');
  });

  test('second factors removed by an administrator (DELETE …/mfa/, passkeys too)', async () => {
    const user = await idp.user();
    const before = await signedInBefore(user.email);
    await idp.store.passkeys.add({
      id: `lost-${user.pk}`,
      user_id: user.pk,
      public_key: 'pQEC',
      sign_count: 0,
      transports: [],
      device_type: 'singleDevice',
      backed_up: false,
      name: 'Lost phone',
    });
    expect(await api(`/users/${user.pk}/mfa/`, { method: 'DELETE' })).toEqual({ status: 204, body: undefined });
    await expect(idp.store.passkeys.listForUser(user.pk)).resolves.toEqual([]);
    const text = await expectEnded(user, before, 'Your two-step verification was reset');
    expect(text).toContain('passkeys of your account were removed');
    const { rows } = await idp.store.audit.list({ user: user.uuid, action: 'mfa.removed' }, { offset: 0, limit: 5 });
    expect(rows[0]).toMatchObject({ actor_type: 'api_token', details: { passkeys: 1, sessions_ended: true, notice: true } });

    // Nothing left to remove: nothing changes, nothing ends, nothing is mailed.
    const after = await signedInBefore(user.email);
    const mails = smtp.messages.length;
    expect((await api(`/users/${user.pk}/mfa/`, { method: 'DELETE' })).status).toBe(204);
    expect((await silentAuthorization(after.http)).searchParams.get('code')).toEqual(expect.any(String));
    expect(smtp.messages.length).toBe(mails);
  });

  test('a bad password changes nothing and ends nothing', async () => {
    const user = await idp.user();
    const before = await signedInBefore(user.email);
    expect(await api(`/users/${user.pk}/set_password/`, { json: { password: 'short' } })).toMatchObject({ status: 400 });
    expect((await silentAuthorization(before.http)).searchParams.get('code')).toEqual(expect.any(String));
    const refreshed = await postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: before.refreshToken,
      client_id: wiki().client_id,
      client_secret: wiki().client_secret,
    });
    expect(refreshed.status).toBe(200);
  });
});

describe('a credential change whose notice cannot be queued (Redis down) changes nothing (pglite)', () => {
  let redis: Awaited<ReturnType<typeof privateRedis>>;
  let idp: CredentialsServer;
  beforeAll(async () => {
    redis = await privateRedis();
    idp = await startCredentialsServer('pglite', CALLBACK, [{ slug: 'wiki' }], { redis: { url: redis.url, prefix: 'outage' } });
  }, 60_000);
  afterAll(async () => {
    await redis?.start(); // the workers close once they reach Redis again
    for (let i = 0; i < 100 && (await fetch(`${idp.url}/-/health/ready/`)).status !== 200; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    await idp?.close();
    await redis?.stop();
  });

  test('set_password and DELETE …/mfa/ answer 503 with Retry-After; the password, the passkey and the session stay', async () => {
    const user = await idp.user();
    const app = idp.apps.wiki!;
    const { body: tokens } = await redeemCode(app, idp.url, await httpSignIn(new CookieClient(), app, idp.url, user.email, PASSWORD));
    const hash = await idp.store.credentials.passwordHash(user.pk);
    await idp.store.passkeys.add({
      id: `kept-${user.pk}`,
      user_id: user.pk,
      public_key: 'pQEC',
      sign_count: 0,
      transports: [],
      device_type: 'singleDevice',
      backed_up: false,
      name: 'Phone',
    });
    const token = await idp.apiToken();
    await redis.stop();

    for (const [method, path, body] of [
      ['POST', `/api/v3/core/users/${user.pk}/set_password/`, JSON.stringify({ password: NEW_PASSWORD })],
      ['DELETE', `/api/v3/core/users/${user.pk}/mfa/`, undefined],
    ] as const) {
      const response = await fetch(idp.url + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body,
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toEqual({ detail: 'The mail queue is unavailable; try again shortly.' });
    }
    await expect(idp.store.credentials.passwordHash(user.pk)).resolves.toBe(hash);
    await expect(idp.store.passkeys.listForUser(user.pk)).resolves.toHaveLength(1);
    const refreshed = await postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    expect(refreshed.status).toBe(200);
    for (const action of ['password.set', 'mfa.removed'])
      expect((await idp.store.audit.list({ user: user.uuid, action }, { offset: 0, limit: 5 })).rows).toEqual([]);
  });
});
