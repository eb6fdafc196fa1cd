/**
 * Deactivation fan-out: PATCH is_active false (or DELETE) ends every session and token of the user in the
 * same transaction, sends a backchannel logout to each app the user held a grant with (retried with a fresh
 * token each time), and the user_deactivated webhook.
 */
import { engines } from '../helpers/database.js';
import { useBrowser } from '../helpers/browser.js';
import { authorizationRequest, discover, postToken } from '../helpers/oidc-rp.js';
import { runFlow, tokensOf } from '../helpers/oidc-flow.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { PASSWORD, startLogoutServer, type LogoutTestServer } from '../helpers/logout-server.js';
import { verifyLogoutToken } from '../helpers/logout-token.js';

const SECRET = 'whsec-test-0123456789abcdef';

describe.each(engines)('deactivation fan-out (%s)', (engine) => {
  const web = useBrowser();
  let wikiBackchannel: Receiver;
  let crmBackchannel: Receiver;
  let opsBackchannel: Receiver;
  let webhook: Receiver;
  let idp: LogoutTestServer;

  beforeAll(async () => {
    [wikiBackchannel, crmBackchannel, opsBackchannel, webhook] = await Promise.all([
      startReceiver(),
      startReceiver(),
      startReceiver(),
      startReceiver(),
    ]);
    idp = await startLogoutServer(engine, web.rp.url, [
      { slug: 'wiki', backchannel_logout_uri: `${wikiBackchannel.url}/bc`, webhook: { url: webhook.url, secret: SECRET } },
      { slug: 'crm', backchannel_logout_uri: `${crmBackchannel.url}/bc` },
      { slug: 'ops', backchannel_logout_uri: `${opsBackchannel.url}/bc` }, // the user never signs in here
    ]);
  });
  afterAll(async () => {
    await idp?.close();
    for (const receiver of [wikiBackchannel, crmBackchannel, opsBackchannel, webhook]) await receiver?.close();
  });
  beforeEach(async () => {
    for (const receiver of [wikiBackchannel, crmBackchannel, opsBackchannel, webhook]) {
      receiver.received.length = 0;
      receiver.respond = () => 200;
    }
  });
  afterEach(async () => web.context.close());

  const refresh = (slug: string, refreshToken: string) => {
    const app = idp.apps[slug]!;
    return postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
  };
  const userinfo = (accessToken: string) =>
    fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${accessToken}` } });

  test('PATCH is_active false: backchannel to each app with a grant, webhook, userinfo 401, refresh invalid_grant', async () => {
    const user = await idp.user();
    const wiki = await tokensOf(await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD }));
    const crm = await tokensOf(await runFlow(web.page, idp.apps.crm!, {}));
    expect((await userinfo(crm.access_token)).status).toBe(200);

    const patched = await idp.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { is_active: false } });
    expect(patched.status).toBe(200);

    // Revocation is real, not only the is_active check: no session, grant or token row is left.
    const left = await idp.db.database.db.selectFrom('oidc_payloads').select('model').where('account_id', '=', user.uuid).execute();
    expect(left).toEqual([]);
    for (const [slug, tokens] of [
      ['wiki', wiki],
      ['crm', crm],
    ] as const) {
      expect((await userinfo(tokens.access_token)).status).toBe(401);
      const refreshed = await refresh(slug, tokens.refresh_token!);
      expect(refreshed.body.error).toBe('invalid_grant');
    }

    await verifyLogoutToken((await wikiBackchannel.waitFor(1))[0]!, idp.apps.wiki!, user.uuid);
    await verifyLogoutToken((await crmBackchannel.waitFor(1))[0]!, idp.apps.crm!, user.uuid);
    const [hook] = await webhook.waitFor(1);
    expect(JSON.parse(hook!.raw.toString())).toMatchObject({
      event_type: 'user_deactivated',
      data: { user_id: user.uuid, user_email: user.email },
    });

    // The browser session is gone too: the next sign-in shows the login page.
    const crmApp = idp.apps.crm!;
    await web.page.goto((await authorizationRequest(await discover(crmApp), crmApp)).url.href);
    expect(web.page.url()).toContain('/if/flow/crm/');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(opsBackchannel.received).toHaveLength(0);
    expect(wikiBackchannel.received).toHaveLength(1);
  });

  test('a receiver answering 500 then 200 gets two different, valid tokens; the log shows both attempts', async () => {
    wikiBackchannel.respond = (_request, index) => (index === 0 ? 500 : 200);
    const user = await idp.user();
    await tokensOf(await runFlow(web.page, idp.apps.wiki!, { email: user.email, password: PASSWORD }));
    expect((await idp.api(`/api/v3/core/users/${user.pk}/`, { method: 'DELETE' })).status).toBe(204);

    const hits = await wikiBackchannel.waitFor(2);
    const first = await verifyLogoutToken(hits[0]!, idp.apps.wiki!, user.uuid);
    const second = await verifyLogoutToken(hits[1]!, idp.apps.wiki!, user.uuid);
    expect(second.jti).not.toBe(first.jti);

    const { rows } = await idp.store.events.listDeliveries({ app: 'wiki' }, { offset: 0, limit: 50 });
    const delivery = rows.find((row) => row.kind === 'backchannel' && row.target === `${wikiBackchannel.url}/bc` && row.attempts === 2);
    expect(delivery).toMatchObject({ status: 'delivered', last_status_code: 200 });
    const attempts = (await idp.store.events.attemptsOf([delivery!.id])).get(delivery!.id)!;
    expect(attempts.map((attempt) => attempt.status_code)).toEqual([500, 200]);
    expect(crmBackchannel.received).toHaveLength(0); // no grant with crm
  });
});
