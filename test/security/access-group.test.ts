/**
 * The access-group rule (spec §5) holds on every grant, not only at sign-in: removing a user from an
 * application's access group ends their refresh tokens and UserInfo at once, with a backchannel logout; and
 * even a membership lost behind the domain's back (rename, direct change) stops refresh and UserInfo. Also:
 * switching accounts with prompt=login, and letting another user sign in when the signed-in one may not.
 */
import { engines } from '../helpers/database.js';
import { PASSWORD, startLogoutServer, type LogoutTestServer } from '../helpers/logout-server.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { verifyLogoutToken } from '../helpers/logout-token.js';
import { CookieClient, httpSignIn, pkceRequest, redeemCode, submit, type HttpResponse } from '../helpers/http-client.js';
import { postToken } from '../helpers/oidc-rp.js';

/**
 * A name that lower-cases differently in PostgreSQL (by its locale: "insan…" or "İnsan…") and in JavaScript
 * ("i̇nsan…", an i and a combining dot). The database decides which names are one group.
 */
const HR = 'İnsan Kaynakları';

describe.each(engines)('access group on every grant (%s)', (engine) => {
  let idp: LogoutTestServer;
  let crmBackchannel: Receiver;
  let wikiBackchannel: Receiver;
  const callback = 'http://127.0.0.1:1/callback';

  beforeAll(async () => {
    [crmBackchannel, wikiBackchannel] = await Promise.all([startReceiver(), startReceiver()]);
    idp = await startLogoutServer(engine, callback, [
      { slug: 'wiki', backchannel_logout_uri: `${wikiBackchannel.url}/bc` },
      { slug: 'crm', access_group: 'crm-users', backchannel_logout_uri: `${crmBackchannel.url}/bc` },
      { slug: 'hr', access_group: HR },
    ]);
  });
  afterAll(async () => {
    await idp?.close();
    await crmBackchannel?.close();
    await wikiBackchannel?.close();
  });
  beforeEach(() => {
    crmBackchannel.received.length = 0;
    wikiBackchannel.received.length = 0;
  });

  const refresh = (slug: string, refreshToken: string) => {
    const app = idp.apps[slug]!;
    return postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
  };
  const userinfo = async (accessToken: string) =>
    (await fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${accessToken}` } })).status;

  async function signedIn(slug: string, email: string, http = new CookieClient()) {
    const tokens = await redeemCode(idp.apps[slug]!, idp.url, await httpSignIn(http, idp.apps[slug]!, idp.url, email, PASSWORD));
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string; id_token: string };
  }

  test('remove_user from the access group: refresh invalid_grant, UserInfo 401, backchannel logout to that app only', async () => {
    const group = await idp.groupUuid('crm-users');
    const user = await idp.user({ groups: [group] });
    const http = new CookieClient();
    const crm = await signedIn('crm', user.email, http);
    const wiki = await signedIn('wiki', user.email, http);
    expect((await refresh('crm', crm.refresh_token)).status).toBe(200);

    expect((await idp.api(`/api/v3/core/groups/${group}/remove_user/`, { json: { pk: user.pk } })).status).toBe(204);
    const refused = await refresh('crm', crm.refresh_token);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    expect(await userinfo(crm.access_token)).toBe(401);
    const [hit] = await crmBackchannel.waitFor(1);
    await verifyLogoutToken(hit!, idp.apps.crm!, user.uuid);

    // The other application is untouched.
    expect((await refresh('wiki', wiki.refresh_token)).status).toBe(200);
    expect(await userinfo(wiki.access_token)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(wikiBackchannel.received).toHaveLength(0);
  });

  test('deleting the access group signs its members out of the application', async () => {
    const group = await idp.groupUuid('crm-users');
    const user = await idp.user({ groups: [group] });
    const crm = await signedIn('crm', user.email);
    expect((await idp.api(`/api/v3/core/groups/${group}/`, { method: 'DELETE' })).status).toBe(204);
    expect((await refresh('crm', crm.refresh_token)).body.error).toBe('invalid_grant');
    expect(await userinfo(crm.access_token)).toBe(401);
    await crmBackchannel.waitFor(1);
    // Recreate the access group for the other tests (start-up would).
    await idp.api('/api/v3/core/groups/', { json: { name: 'crm-users' } });
  });

  test('a membership lost without the domain (store change, rename) still stops refresh and UserInfo', async () => {
    const group = await idp.groupUuid('crm-users');
    const user = await idp.user({ groups: [group] });
    const crm = await signedIn('crm', user.email);
    await idp.store.groups.removeMember(group, user.pk); // no revocation happens here
    expect((await refresh('crm', crm.refresh_token)).body.error).toBe('invalid_grant');
    expect(await userinfo(crm.access_token)).toBe(401);

    const other = await idp.user({ groups: [group] });
    const tokens = await signedIn('crm', other.email);
    await idp.api(`/api/v3/core/groups/${group}/`, { method: 'PATCH', json: { name: 'crm-users-renamed' } });
    try {
      expect((await refresh('crm', tokens.refresh_token)).body.error).toBe('invalid_grant');
    } finally {
      await idp.api(`/api/v3/core/groups/${group}/`, { method: 'PATCH', json: { name: 'crm-users' } });
    }
  });

  /** Starts an authorization request in the client's session and returns the page it lands on, or the callback. */
  async function authorize(http: CookieClient, slug: string, extra: Record<string, string>) {
    const request = await pkceRequest(idp.apps[slug]!, idp.url, extra);
    return { request, landed: await http.follow(await http.request(request.url.href), idp.apps[slug]!.redirect_uri) };
  }

  async function signInOnPage(page: HttpResponse | URL, http: CookieClient, slug: string, email: string) {
    if (page instanceof URL) throw new Error(`expected a sign-in page, got the callback ${page.href}`);
    expect(page.text).toContain('<h1>Sign in</h1>');
    const passwordPage = await submit(http, page, { email });
    return http.follow(await submit(http, passwordPage, { password: PASSWORD }), idp.apps[slug]!.redirect_uri);
  }

  test('switching accounts: signed in as A, prompt=login lets B sign in to the same application', async () => {
    const [a, b] = [await idp.user(), await idp.user()];
    const http = new CookieClient();
    await signedIn('wiki', a.email, http);
    const { request, landed } = await authorize(http, 'wiki', { prompt: 'login' });
    const done = await signInOnPage(landed, http, 'wiki', b.email);
    if (!(done instanceof URL)) throw new Error(`no callback: ${done.status} ${done.text.slice(0, 300)}`);
    const tokens = await redeemCode(idp.apps.wiki!, idp.url, { request, callback: done });
    expect(JSON.parse(Buffer.from(tokens.body.id_token.split('.')[1], 'base64url').toString()).sub).toBe(b.uuid);
  });

  test.each<Record<string, string>>([{ prompt: 'login' }, { max_age: '0' }])(
    'signed in as a user outside the access group, %o lets a member sign in',
    async (extra) => {
      const outsider = await idp.user();
      const member = await idp.user({ groups: [await idp.groupUuid('crm-users')] });
      const http = new CookieClient();
      await signedIn('wiki', outsider.email, http);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // max_age=0: the session is older than 0 s
      const { request, landed } = await authorize(http, 'crm', extra);
      const done = await signInOnPage(landed, http, 'crm', member.email);
      if (!(done instanceof URL)) throw new Error('no callback');
      expect(done.searchParams.get('code')).toEqual(expect.any(String));
      expect((await redeemCode(idp.apps.crm!, idp.url, { request, callback: done })).status).toBe(200);
    },
  );

  test('an access group named with İ admits its members, and not the members of a group only JavaScript would confuse with it', async () => {
    const hr = (await idp.store.groups.findByName(HR))!;
    const member = await idp.user({ groups: [hr.uuid] });
    const tokens = await signedIn('hr', member.email);
    expect((await refresh('hr', tokens.refresh_token)).status).toBe(200);
    // Another group to the database, the same name to JavaScript's toLowerCase().
    const lookAlike = await idp.store.groups.insert({ name: HR.toLowerCase() });
    expect(lookAlike.uuid).not.toBe(hr.uuid);
    for (const outsider of [await idp.user({ groups: [lookAlike.uuid] }), await idp.user()]) {
      const signIn = await httpSignIn(new CookieClient(), idp.apps.hr!, idp.url, outsider.email, PASSWORD);
      expect(signIn.callback.searchParams.get('error')).toBe('access_denied');
    }
  });

  test('signed in as a user outside the access group, plain SSO still answers access_denied', async () => {
    const outsider = await idp.user();
    const http = new CookieClient();
    await signedIn('wiki', outsider.email, http);
    const { landed } = await authorize(http, 'crm', {});
    expect(landed).toBeInstanceOf(URL);
    expect((landed as URL).searchParams.get('error')).toBe('access_denied');
  });
});
