/**
 * The backchannel machinery without a browser: the engine's own sender is replaced (an internal API we pin),
 * the relay turns one outbox event into deliveries for the apps with a URI only (never a webhook), and the
 * signer that `idp worker` builds without HTTP produces tokens the app's JWKS verifies.
 */
import * as jose from 'jose';
import { engines } from '../helpers/database.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startLogoutServer, type LogoutTestServer } from '../helpers/logout-server.js';
import { LOGOUT_EVENT, verifyLogoutToken } from '../helpers/logout-token.js';
import { recordEndedSession } from '../../src/domain/logout.js';
import { workerLogoutSigner } from '../../src/oidc/worker-signer.js';
import { createLogger } from '../../src/observability/logger.js';

describe.each(engines)('backchannel jobs (%s)', (engine) => {
  let backchannel: Receiver;
  let webhook: Receiver;
  let idp: LogoutTestServer;

  beforeAll(async () => {
    backchannel = await startReceiver();
    webhook = await startReceiver();
    idp = await startLogoutServer(engine, 'http://127.0.0.1/cb', [
      {
        slug: 'wiki',
        backchannel_logout_uri: `${backchannel.url}/bc`,
        webhook: { url: webhook.url, secret: 'whsec-test-0123456789abcdef' },
      },
      { slug: 'plain' },
    ]);
  });
  afterAll(async () => {
    await idp?.close();
    await backchannel?.close();
    await webhook?.close();
  });

  test("the engine's own backchannel sender sends nothing", async () => {
    const { provider } = idp.providers.bySlug.get('wiki')!;
    const client = await provider.Client.find('client-wiki');
    await (client as unknown as { backchannelLogout(sub: string, sid: string): Promise<void> }).backchannelLogout('someone', 'sid-1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(backchannel.received).toHaveLength(0);
  });

  test('one event → a delivery per app with a URI, revoked grant rows, no webhook', async () => {
    const sub = '6f9b7a52-0000-4000-8000-000000000001';
    await idp.store.oidcPayloads.upsert({
      model: 'AccessToken',
      id: 'at-1',
      payload: { grantId: 'g-1' },
      grant_id: 'g-1',
      user_code: null,
      uid: null,
      account_id: sub,
      client_id: 'client-wiki',
      expires_at: null,
    });
    await recordEndedSession(idp.store, {
      sub,
      authorizations: [{ client_id: 'client-wiki', grant_id: 'g-1', sid: 's-1' }, { client_id: 'client-plain' }],
    });
    expect(await idp.store.oidcPayloads.find('AccessToken', 'at-1', new Date())).toBeUndefined();

    const [hit] = await backchannel.waitFor(1);
    await verifyLogoutToken(hit!, idp.apps.wiki!, sub);
    const { rows } = await idp.store.events.listDeliveries({}, { offset: 0, limit: 20 });
    expect(rows.map((row) => [row.app, row.kind])).toEqual([['wiki', 'backchannel']]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(webhook.received).toHaveLength(0);
  });

  test('the worker signer (no HTTP server) signs tokens the JWKS verifies, each with its own jti', async () => {
    const sign = workerLogoutSigner(idp.settings, idp.store, createLogger('silent'));
    const app = idp.apps.wiki!;
    const jwks = jose.createRemoteJWKSet(new URL(`${app.issuer}jwks/`));
    const tokens = [await sign(app.client_id, 'user-1'), await sign(app.client_id, 'user-1')];
    const payloads = await Promise.all(
      tokens.map(
        async (token) => (await jose.jwtVerify(token, jwks, { issuer: app.issuer, audience: app.client_id, typ: 'logout+jwt' })).payload,
      ),
    );
    expect(payloads[0]).toMatchObject({ sub: 'user-1', events: { [LOGOUT_EVENT]: {} } });
    expect(payloads[0]!.jti).not.toBe(payloads[1]!.jti);
    await expect(sign('client-unknown', 'user-1')).rejects.toThrow('no application');
  });
});
