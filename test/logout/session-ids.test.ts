/**
 * Logout tokens name the session that ended (`sid`), as relying parties that find their sessions by sid only
 * need (Apache mod_auth_openidc): deactivation, "sign out everywhere" and losing an application's access group
 * send one logout token per ended session with both `sub` and the `sid` that application saw there; an
 * application holding a grant but no live session (refresh tokens only) gets `sub` alone. Over HTTP, two
 * "browsers" (cookie jars), a real backchannel receiver.
 */
import * as jose from 'jose';
import { engines } from '../helpers/database.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { logoutTokenOf, verifyLogoutToken } from '../helpers/logout-token.js';
import { CookieClient, httpSignIn, redeemCode } from '../helpers/http-client.js';
import { PASSWORD, startLogoutServer, type LogoutTestServer } from '../helpers/logout-server.js';

const CALLBACK = 'http://127.0.0.1:9/callback'; // never requested: the client stops at the redirect

describe.each(engines)('logout tokens carry the sid of each ended session (%s)', (engine) => {
  let wikiBackchannel: Receiver;
  let crmBackchannel: Receiver;
  let idp: LogoutTestServer;

  beforeAll(async () => {
    [wikiBackchannel, crmBackchannel] = await Promise.all([startReceiver(), startReceiver()]);
    idp = await startLogoutServer(engine, CALLBACK, [
      { slug: 'wiki', backchannel_logout_uri: `${wikiBackchannel.url}/bc` },
      { slug: 'crm', backchannel_logout_uri: `${crmBackchannel.url}/bc`, access_group: 'crm-users' },
    ]);
  });
  afterAll(async () => {
    await idp?.close();
    await wikiBackchannel?.close();
    await crmBackchannel?.close();
  });

  /** Signs in to `slug` in `http` (a browser); returns the sid the application saw in its ID token. */
  async function signIn(http: CookieClient, slug: string, email: string): Promise<string> {
    const app = idp.apps[slug]!;
    const { status, body } = await redeemCode(app, idp.url, await httpSignIn(http, app, idp.url, email, PASSWORD));
    expect(status).toBe(200);
    return jose.decodeJwt(body.id_token).sid as string;
  }

  /** The verified logout tokens `receiver` got for `sub`, once the outbox is relayed and `slug` has no delivery pending. */
  async function tokensFor(receiver: Receiver, slug: string, sub: string) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      await idp.workers!.relay.relayOnce();
      const { rows } = await idp.store.events.listDeliveries({ app: slug, status: 'pending' }, { offset: 0, limit: 10 });
      if (!rows.length) break;
      if (Date.now() > deadline) throw new Error(`deliveries to ${slug} still pending`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const mine = receiver.received.filter((hit) => jose.decodeJwt(logoutTokenOf(hit)).sub === sub);
    return Promise.all(mine.map((hit) => verifyLogoutToken(hit, idp.apps[slug]!, sub)));
  }

  test('deactivation: one token per browser session with its sid, and sub alone for a grant without a live session', async () => {
    const user = await idp.user();
    const [first, second, third] = [new CookieClient(), new CookieClient(), new CookieClient()];
    const sids = [await signIn(first, 'wiki', user.email), await signIn(second, 'wiki', user.email)];
    expect(sids[0]).not.toBe(sids[1]);
    // A third sign-in whose browser session has since expired (sessions live 14 days, refresh tokens 30): its grant remains.
    await signIn(third, 'wiki', user.email);
    const { db } = idp.db.database;
    const sessions = await db
      .selectFrom('oidc_payloads')
      .select(['id', 'payload'])
      .where('account_id', '=', user.uuid)
      .where('model', '=', 'Session')
      .execute();
    const expired = sessions.find((session) => !sids.includes((session.payload as any).authorizations['client-wiki'].sid))!;
    await db
      .updateTable('oidc_payloads')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('model', '=', 'Session')
      .where('id', '=', expired.id)
      .execute();

    expect((await idp.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { is_active: false } })).status).toBe(200);

    const tokens = await tokensFor(wikiBackchannel, 'wiki', user.uuid);
    expect(tokens).toHaveLength(3);
    expect(tokens.map((token) => token.sid ?? null).sort()).toEqual([...sids, null].sort());
    expect(new Set(tokens.map((token) => token.jti)).size).toBe(3);
  });

  test('"sign out everywhere" on the account page: a token per session, each with its own sid', async () => {
    const user = await idp.user();
    const [first, second] = [new CookieClient(), new CookieClient()];
    const sids = [await signIn(first, 'wiki', user.email), await signIn(second, 'wiki', user.email)];
    const page = await second.follow(await second.request(`${idp.url}/account/`));
    const csrf = /name="csrf" value="([^"]+)"/.exec((page as { text: string }).text)![1]!;
    expect((await second.request(`${idp.url}/account/sign-out-everywhere`, { form: { csrf } })).status).toBeLessThan(400);

    const tokens = await tokensFor(wikiBackchannel, 'wiki', user.uuid);
    expect(tokens.map((token) => token.sid).sort()).toEqual([...sids].sort());
  });

  test('leaving the access group: the application hears a token per session with its sid; the other application nothing', async () => {
    const user = await idp.user({ groups: [await idp.groupUuid('crm-users')] });
    const browser = new CookieClient();
    const wikiSid = await signIn(browser, 'wiki', user.email);
    const crmSid = await signIn(browser, 'crm', user.email); // single sign-on: the same browser session
    expect(crmSid).not.toBe(wikiSid); // each application sees its own sid of the session

    const group = await idp.groupUuid('crm-users');
    expect((await idp.api(`/api/v3/core/groups/${group}/remove_user/`, { json: { pk: user.pk } })).status).toBe(204);

    const tokens = await tokensFor(crmBackchannel, 'crm', user.uuid);
    expect(tokens).toEqual([expect.objectContaining({ sub: user.uuid, sid: crmSid })]);
    expect(wikiBackchannel.received.filter((hit) => jose.decodeJwt(logoutTokenOf(hit)).sub === user.uuid)).toEqual([]);
  });
});
