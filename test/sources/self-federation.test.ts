/**
 * Federating with itself: a second instance of this service (on localhost, its own database) is the upstream OpenID
 * Connect provider of the first (on 127.0.0.1), through the same application and discovery any relying party uses.
 * A person of the second signs in there with its own sign-in page and password, and arrives at the first's
 * application with an account made just in time, linked to the second's subject; the next sign-in goes by the link.
 */
import * as client from 'openid-client';
import { engines } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';
import { startOidcServer, PASSWORD, type OidcTestServer } from '../helpers/oidc-server.js';
import { startCallbackServer, authorizationRequest, discover, exchangeCode, type CallbackServer } from '../helpers/oidc-rp.js';
import { FederationClient, formEndingWith, headingOf, isPage } from './federation-client.js';

describe.each(engines)('this service as the upstream of another instance (%s)', (engine) => {
  let rp: CallbackServer;
  let idp: OidcTestServer;
  let upstream: OidcTestServer;

  beforeAll(async () => {
    rp = await startCallbackServer();
    // Each must know the other's URL: the upstream's port is chosen first, it starts once the service's is known.
    const port = await freePort();
    idp = await startOidcServer(engine, rp.url, [{ slug: 'wiki', sources: ['home'] }], {
      overrides: {
        sources: [
          {
            slug: 'home',
            type: 'oidc',
            name: 'Home Office',
            issuer: `http://localhost:${port}/application/o/branch/`,
            client_id: 'client-branch',
            client_secret: 'secret-branch-0123456789abcdef',
          },
        ],
      },
    });
    upstream = await startOidcServer(engine, `${idp.url}/source/oauth/callback/home/`, [{ slug: 'branch' }], {
      hostname: 'localhost',
      port,
    });
  });
  afterAll(async () => {
    await idp?.close();
    await upstream?.close();
    await rp?.close();
  });

  async function signInAtHome(email: string) {
    const http = new FederationClient();
    const app = idp.apps.wiki!;
    const config: client.Configuration = await discover(app);
    const request = await authorizationRequest(config, app);
    const page = await http.follow(await http.request(request.url.href), app.redirect_uri);
    if (!isPage(page)) throw new Error('no sign-in page');
    const button = formEndingWith(page, '/source/home');
    const atHome = await http.follow(await http.request(button.action, { form: button.fields }), `${idp.url}/source/oauth/callback/home/`);
    if (!isPage(atHome) || !atHome.url.startsWith(upstream.url)) throw new Error('not at the upstream’s sign-in page');
    expect(headingOf(atHome)).toBe('Sign in');
    const login = formEndingWith(atHome, '/email');
    const back = await http.follow(await http.request(login.action, { form: { ...login.fields, email, password: PASSWORD } }), idp.url);
    if (isPage(back)) throw new Error(`stayed at the upstream: ${back.status} ${headingOf(back)}`);
    const landed = await http.follow(await http.request(back.href), app.redirect_uri);
    if (isPage(landed)) throw new Error(`ended on a page: ${landed.status} ${headingOf(landed)} ${landed.text.slice(0, 300)}`);
    return (await exchangeCode(config, landed, request)).claims()!;
  }

  test("a person of the other instance signs in with its own page and password, and is linked here by that instance's subject", async () => {
    const there = await upstream.user({ name: 'Branch Person' });
    const claims = await signInAtHome(there.email);
    expect(claims.amr).toEqual(['fed']);
    const here = (await idp.store.users.findByEmail(there.email))!;
    expect(here).toMatchObject({ uuid: claims.sub, name: 'Branch Person' });
    expect(here.uuid).not.toBe(there.uuid); // two services, two accounts: linked, not shared
    await expect(idp.store.sourceLinks.find('home', there.uuid)).resolves.toMatchObject({ user_id: here.id });
    expect((await signInAtHome(there.email)).sub).toBe(here.uuid);
  });
});
