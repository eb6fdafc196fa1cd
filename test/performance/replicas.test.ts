/**
 * Two replicas on one database, as behind a load balancer, each with its read cache of tokens, grants and users
 * (src/store/replica/replica-store.ts): what one of them revokes, deactivates or regroups, the other refuses at once. Each
 * test first has replica B use the token, so B holds it (and its grant and user) in memory when the change is made
 * through A; the database's change notices are what empties B's cache.
 */
import { sql } from 'kysely';
import { engines, openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer, type TestApp } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, pkceRequest, redeemCode } from '../helpers/http-client.js';
import { LISTENER_NAME } from '../../src/store/change-feed.js';

/** Both replicas' caches are live once their connections listen (until then they read through, which proves less). */
async function waitForListeners(db: TestDatabase, count: number) {
  for (let tries = 0; tries < 500; tries += 1) {
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_stat_activity where application_name = ${LISTENER_NAME} and datname = current_database()`.execute(
      db.database.db,
    );
    if (rows[0]!.n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the replicas never listened');
}

describe.each(engines)('two replicas (%s)', (engine) => {
  let db: TestDatabase;
  let a: OidcTestServer;
  let b: OidcTestServer;
  let wiki: TestApp;

  beforeAll(async () => {
    db = await openTestDatabase(engine);
    const apps = [{ slug: 'wiki', access_group: 'staff' }];
    a = await startOidcServer(engine, 'http://127.0.0.1:1/cb', apps, { db });
    b = await startOidcServer(engine, 'http://127.0.0.1:1/cb', apps, { db });
    if (db.engine === 'postgres') await waitForListeners(db, 2);
    wiki = a.apps.wiki!;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.close();
  });

  async function signedIn() {
    const user = await a.user({ groups: [await a.groupUuid('staff')] });
    const tokens = (await redeemCode(wiki, a.url, await httpSignIn(new CookieClient(), wiki, a.url, user.email, PASSWORD))).body;
    return { user, tokens };
  }
  const userinfo = (server: OidcTestServer, token: string) =>
    fetch(`${server.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
  const refresh = (server: OidcTestServer, token: string) =>
    fetch(`${server.url}/application/o/token/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: wiki.client_id,
        client_secret: wiki.client_secret,
      }).toString(),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const revoke = (server: OidcTestServer, token: string) =>
    fetch(`${server.url}/application/o/revoke/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: wiki.client_id, client_secret: wiki.client_secret }).toString(),
    }).then((r) => r.status);

  const introspect = (server: OidcTestServer, token: string) =>
    fetch(`${server.url}/application/o/introspect/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: wiki.client_id, client_secret: wiki.client_secret }).toString(),
    }).then((r) => r.json() as Promise<{ active: boolean }>);

  test('an access token revoked at one replica is refused by the other at once', async () => {
    const { tokens } = await signedIn();
    expect(await userinfo(b, tokens.access_token)).toBe(200); // B has used it (anything B keeps, it keeps now)
    expect(await revoke(a, tokens.access_token)).toBe(200);
    expect(await userinfo(b, tokens.access_token)).toBe(401);
    expect((await refresh(b, tokens.refresh_token)).body.error).toBe('invalid_grant'); // the engine revokes the grant with it
  });

  test('a refresh token rotated at one replica and replayed at the one that issued it (and still holds it): refused, and the grant revoked', async () => {
    // Consumes are not announced (migration 0009): the replica that issued the token still holds it unconsumed,
    // and the consume in the database is what refuses it.
    const { tokens } = await signedIn();
    const rotated = await refresh(b, tokens.refresh_token);
    expect(rotated.status).toBe(200);
    expect((await introspect(a, tokens.refresh_token)).active).toBe(false);
    expect((await introspect(a, rotated.body.refresh_token)).active).toBe(true);
    const replay = await refresh(a, tokens.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    // As the engine does when it sees a used refresh token: the whole grant goes, at both replicas.
    expect((await refresh(b, rotated.body.refresh_token)).body.error).toBe('invalid_grant');
    expect(await userinfo(b, rotated.body.access_token)).toBe(401);
    expect(await userinfo(a, rotated.body.access_token)).toBe(401);
  });

  test('a browser session ended through one replica: the other, which kept it, asks for a sign-in at once', async () => {
    const user = await a.user({ groups: [await a.groupUuid('staff')] });
    const browser = new CookieClient();
    await httpSignIn(browser, wiki, a.url, user.email, PASSWORD);
    const authorizeAt = async (server: OidcTestServer) => {
      const response = await browser.request((await pkceRequest(wiki, server.url)).url.href);
      expect(response.status).toBe(303);
      return new URL(response.headers.get('location')!, server.url);
    };
    expect((await authorizeAt(b)).searchParams.get('code')).toEqual(expect.any(String)); // single sign-on at B: B keeps the session
    // Deactivation ends every session. Had B still answered from its copy of the session, the engine would have
    // found a signed-in user outside the application and redirected with access_denied; without one it asks who signs in.
    expect((await a.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { is_active: false } })).status).toBe(200);
    const next = await authorizeAt(b);
    expect(next.searchParams.get('error')).toBeNull();
    expect(next.searchParams.get('code')).toBeNull();
    expect(next.pathname).toMatch(/^\/if\/flow\//);
  });

  test('a user deactivated through one replica is refused by the other at once: UserInfo and refresh', async () => {
    const { user, tokens } = await signedIn();
    expect(await userinfo(b, tokens.access_token)).toBe(200);
    expect((await a.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { is_active: false } })).status).toBe(200);
    expect(await userinfo(b, tokens.access_token)).toBe(401);
    expect((await refresh(b, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  test("a user removed from the access group through one replica can no longer use the other's tokens", async () => {
    const { user, tokens } = await signedIn();
    const fresh = await refresh(b, tokens.refresh_token);
    expect(fresh.status).toBe(200);
    const staff = await a.groupUuid('staff');
    expect((await a.api(`/api/v3/core/groups/${staff}/remove_user/`, { method: 'POST', json: { pk: user.pk } })).status).toBe(204);
    expect(await userinfo(b, fresh.body.access_token)).toBe(401);
    expect((await refresh(b, fresh.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  test('the access group renamed through one replica: the other refuses its former members at once', async () => {
    const { tokens } = await signedIn();
    expect(await userinfo(b, tokens.access_token)).toBe(200);
    const staff = await a.groupUuid('staff');
    expect((await a.api(`/api/v3/core/groups/${staff}/`, { method: 'PATCH', json: { name: 'staff-before' } })).status).toBe(200);
    try {
      expect(await userinfo(b, tokens.access_token)).toBe(401);
    } finally {
      expect((await a.api(`/api/v3/core/groups/${staff}/`, { method: 'PATCH', json: { name: 'staff' } })).status).toBe(200);
    }
    expect(await userinfo(b, tokens.access_token)).toBe(200); // and named back, they are members again
  });

  test('a user deleted through one replica: the other refuses the tokens at once', async () => {
    const { user, tokens } = await signedIn();
    expect(await userinfo(b, tokens.access_token)).toBe(200);
    expect((await a.api(`/api/v3/core/users/${user.pk}/`, { method: 'DELETE' })).status).toBe(204);
    expect(await userinfo(b, tokens.access_token)).toBe(401);
  });

  test('one after another, twenty revocations at A are each refused by B on the very next request', async () => {
    for (let i = 0; i < 20; i += 1) {
      const { tokens } = await signedIn();
      expect(await userinfo(b, tokens.access_token)).toBe(200);
      expect(await userinfo(b, tokens.access_token)).toBe(200); // from B's cache
      expect(await revoke(a, tokens.access_token)).toBe(200);
      expect(await userinfo(b, tokens.access_token)).toBe(401);
    }
  });
});
