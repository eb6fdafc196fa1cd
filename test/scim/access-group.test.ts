/**
 * What SCIM changes does to people signed in to applications, as the API's changes do: removing a member from an
 * application's access group (Okta's filter, Entra ID's value list) ends their grants there with a backchannel
 * logout, and deactivating or deleting a user ends every grant — real sign-ins, real tokens, real receivers.
 */
import { engines } from '../helpers/database.js';
import { PASSWORD, startLogoutServer, type LogoutTestServer } from '../helpers/logout-server.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { CookieClient, httpSignIn, redeemCode } from '../helpers/http-client.js';
import { postToken } from '../helpers/oidc-rp.js';
import { patch } from '../helpers/scim.js';

describe.each(engines)('SCIM and signed-in people (%s)', (engine) => {
  let idp: LogoutTestServer;
  let crmBackchannel: Receiver;
  let wikiBackchannel: Receiver;
  const callback = 'http://127.0.0.1:1/callback';

  beforeAll(async () => {
    [crmBackchannel, wikiBackchannel] = await Promise.all([startReceiver(), startReceiver()]);
    idp = await startLogoutServer(engine, callback, [
      { slug: 'wiki', backchannel_logout_uri: `${wikiBackchannel.url}/bc` },
      { slug: 'crm', access_group: 'crm-users', backchannel_logout_uri: `${crmBackchannel.url}/bc` },
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
  async function signedIn(slug: string, email: string, http = new CookieClient()) {
    const tokens = await redeemCode(idp.apps[slug]!, idp.url, await httpSignIn(http, idp.apps[slug]!, idp.url, email, PASSWORD));
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string };
  }

  test.each([
    ['Okta: remove members[value eq …]', (user: string) => ({ op: 'remove', path: `members[value eq "${user}"]` })],
    ['Entra ID: Remove members with a value list', (user: string) => ({ op: 'Remove', path: 'members', value: [{ value: user }] })],
  ])('%s from the access group: that application only is signed out', async (_name, removal) => {
    const group = await idp.groupUuid('crm-users');
    const user = await idp.user({ groups: [group] });
    const http = new CookieClient();
    const crm = await signedIn('crm', user.email, http);
    const wiki = await signedIn('wiki', user.email, http);

    const removed = await idp.api(`/scim/v2/Groups/${group}`, { method: 'PATCH', json: patch(removal(user.uuid)) });
    expect(removed.status).toBe(204);
    expect((await refresh('crm', crm.refresh_token)).body.error).toBe('invalid_grant');
    await crmBackchannel.waitFor(1);
    expect((await refresh('wiki', wiki.refresh_token)).status).toBe(200);
    expect(wikiBackchannel.received).toHaveLength(0);
  });

  test('deactivation (active "False") and DELETE end every grant, with backchannel logouts', async () => {
    const deactivated = await idp.user();
    const deleted = await idp.user();
    const grants = [await signedIn('wiki', deactivated.email), await signedIn('wiki', deleted.email)];

    const off = await idp.api(`/scim/v2/Users/${deactivated.uuid}`, {
      method: 'PATCH',
      json: patch({ op: 'Replace', path: 'active', value: 'False' }),
    });
    expect(off).toMatchObject({ status: 200, body: { active: false } });
    expect((await idp.api(`/scim/v2/Users/${deleted.uuid}`, { method: 'DELETE' })).status).toBe(204);
    for (const grant of grants) expect((await refresh('wiki', grant.refresh_token)).body.error).toBe('invalid_grant');
    await wikiBackchannel.waitFor(2);
    expect((await idp.api(`/scim/v2/Users/${deleted.uuid}`)).status).toBe(404);
  });
});
