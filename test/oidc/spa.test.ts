/**
 * A single-page app nobody on the team wrote the client of: oidc-client-ts in chromium, served from a second
 * origin (localhost, the service on 127.0.0.1), as a public client. It signs in (code + PKCE), refreshes its
 * tokens silently with the refresh token, reads UserInfo across origins (CORS) and signs out with its ID token.
 */
import http from 'node:http';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { engines } from '../helpers/database.js';
import { signIn, useBrowser } from '../helpers/browser.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { ROOT } from '../helpers/paths.js';

// The library's own browser build (a global `oidc`), as an app would serve it.
const LIBRARY = readFileSync(path.join(ROOT, 'node_modules/oidc-client-ts/dist/browser/oidc-client-ts.min.js'), 'utf8');

/** The app's own script: one UserManager, and the few calls the test makes through `window.spa`. */
const appScript = (authority: string, clientId: string, origin: string) => `
const manager = new oidc.UserManager({
  authority: ${JSON.stringify(authority)}, client_id: ${JSON.stringify(clientId)}, redirect_uri: '${origin}/callback',
  post_logout_redirect_uri: '${origin}/logged-out', response_type: 'code', scope: 'openid profile email',
  userStore: new oidc.WebStorageStateStore({ store: window.localStorage }),
});
window.spa = {
  signIn: () => manager.signinRedirect(),
  refresh: async () => { const user = await manager.signinSilent(); return { access: user.access_token, refresh: user.refresh_token }; },
  user: async () => { const user = await manager.getUser(); return user && { profile: user.profile, access: user.access_token, refresh: user.refresh_token }; },
  userinfo: async () => {
    const user = await manager.getUser();
    const response = await fetch(await manager.metadataService.getUserInfoEndpoint(), { headers: { Authorization: 'Bearer ' + user.access_token } });
    return { status: response.status, body: await response.json() };
  },
  signOut: () => manager.signoutRedirect(),
};
if (location.pathname === '/callback') manager.signinRedirectCallback().then(() => { document.title = 'signed in'; }, (e) => { document.title = 'error: ' + e.message; });
`;

interface SpaServer {
  origin: string;
  close(): Promise<void>;
  setClient(authority: string, clientId: string): void;
}

/** Serves the app's pages and scripts on localhost: a different origin from the service's 127.0.0.1. */
async function startSpa(): Promise<SpaServer> {
  let script = '';
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/oidc-client-ts.js') return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(LIBRARY);
    if (path === '/app.js') return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end(`<!doctype html><title>spa ${path}</title><script src="/oidc-client-ts.js"></script><script src="/app.js"></script>`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    setClient: (authority, clientId) => {
      script = appScript(authority, clientId, origin);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Spa = { spa: Record<string, () => Promise<any>> };

describe.each(engines)('single-page apps with oidc-client-ts (%s)', (engine) => {
  const web = useBrowser();
  const spas: Record<string, SpaServer> = {};
  let idp: OidcTestServer;

  beforeAll(async () => {
    // Two applications, each its own origin (localhost:<port>), neither the service's.
    for (const slug of ['dashboard', 'console']) spas[slug] = await startSpa();
    idp = await startOidcServer(engine, web.rp.url, [
      { slug: 'wiki' },
      ...Object.entries(spas).map(([slug, spa]) => ({
        slug,
        client_type: 'public' as const,
        redirect_uris: [`${spa.origin}/callback`],
        post_logout_redirect_uris: [`${spa.origin}/logged-out`],
      })),
    ]);
    for (const [slug, spa] of Object.entries(spas)) spa.setClient(idp.apps[slug]!.issuer.replace(/\/$/, ''), idp.apps[slug]!.client_id);
  });
  afterAll(async () => {
    await idp?.close();
    for (const spa of Object.values(spas)) await spa.close();
  });

  test.each(['dashboard', 'console'])('%s signs in, refreshes silently, reads UserInfo across origins, signs out', async (slug) => {
    const { page } = web;
    const spa = spas[slug]!;
    const user = await idp.user({ name: 'Grace Hopper' });
    await page.goto(`${spa.origin}/`);
    await page.evaluate(() => {
      void (window as unknown as Spa).spa.signIn!();
    }); // navigates away
    await page.waitForURL((url) => url.href.includes('/if/flow/'));
    await signIn(page, user.email, PASSWORD);
    await page.waitForURL((url) => url.href.startsWith(`${spa.origin}/callback`));
    await page.waitForFunction(() => document.title !== 'spa /callback');
    expect(await page.title()).toBe('signed in');

    const signedIn = await page.evaluate(() => (window as unknown as Spa).spa.user!());
    expect(signedIn.profile).toMatchObject({ sub: user.uuid, email: user.email, name: 'Grace Hopper' });
    expect(signedIn.refresh).toEqual(expect.any(String));

    const refreshed = await page.evaluate(() => (window as unknown as Spa).spa.refresh!());
    expect(refreshed.access).not.toBe(signedIn.access);
    expect(refreshed.refresh).not.toBe(signedIn.refresh); // rotated

    const userinfo = await page.evaluate(() => (window as unknown as Spa).spa.userinfo!());
    expect(userinfo).toEqual({ status: 200, body: expect.objectContaining({ sub: user.uuid, email: user.email }) });

    await page.evaluate(() => {
      void (window as unknown as Spa).spa.signOut!();
    });
    await page.waitForURL((url) => url.href.startsWith(`${spa.origin}/logged-out`));
    // The session is over: the next sign-in asks for the e-mail again, and the old refresh token is dead.
    await page.goto(`${spa.origin}/`);
    await page.evaluate(() => {
      void (window as unknown as Spa).spa.signIn!();
    });
    await page.waitForURL((url) => url.href.includes('/if/flow/'));
    await expect(page.getByLabel('Email', { exact: true }).isVisible()).resolves.toBe(true);
    const reuse = await fetch(`${idp.url}/application/o/token/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshed.refresh, client_id: idp.apps[slug]!.client_id }),
    });
    expect((await reuse.json()).error).toBe('invalid_grant');
  });
});
