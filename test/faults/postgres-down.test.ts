/**
 * PostgreSQL goes down under a running service and comes back: readiness says so (503), the API answers
 * 503 {"detail"}, the protocol answers temporarily_unavailable, the sign-in pages ask to try again, nothing is
 * half-written — and when the database returns, everything works again without a restart.
 */
import { sql } from 'kysely';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { privatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { CookieClient, formOf, httpSignIn, pkceRequest, redeemCode, submit } from '../helpers/http-client.js';
import { postToken } from '../helpers/oidc-rp.js';

const callback = 'http://127.0.0.1:1/callback';
let pg: PrivatePostgres;
let idp: OidcTestServer;

beforeAll(async () => {
  pg = await privatePostgres();
  idp = await startOidcServer('postgres', callback, [{ slug: 'wiki' }], { db: pg.db });
}, 60_000);
afterAll(async () => {
  await idp?.close();
  await pg?.destroy();
});

const count = async (table: 'users' | 'outbox') =>
  (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(pg.db.database.db)).rows[0]!.n;

test("down: 503 everywhere in each family's shape, nothing written; back: everything works, no restart", async () => {
  const user = await idp.user();
  const http = new CookieClient();
  const signedIn = await redeemCode(idp.apps.wiki!, idp.url, await httpSignIn(http, idp.apps.wiki!, idp.url, user.email, PASSWORD));
  expect(signedIn.status).toBe(200);
  const token = await idp.apiToken();
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${idp.url}/api/v3/core${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } });
  // A sign-in page opened before the outage, submitted during it.
  const pending = new CookieClient();
  const page = await pending.follow(await pending.request((await pkceRequest(idp.apps.wiki!, idp.url)).url.href));
  if (page instanceof URL) throw new Error('expected the sign-in page');
  const [usersBefore, outboxBefore] = [await count('users'), await count('outbox')];

  pg.stop();
  try {
    const ready = await fetch(`${idp.url}/-/health/ready/`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).checks.database).toBe('unavailable');
    expect((await fetch(`${idp.url}/-/health/live/`)).status).toBe(200);

    const list = await api('/users/');
    expect(list.status).toBe(503);
    expect(Number(list.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await list.json()).toEqual({ detail: 'The database is unavailable; try again shortly.' });
    const create = await api('/users/', {
      method: 'POST',
      body: JSON.stringify({ username: 'outage@example.com', email: 'outage@example.com', name: 'Outage' }),
    });
    expect(create.status).toBe(503);

    const app = idp.apps.wiki!;
    const refreshed = await postToken(idp.url, {
      grant_type: 'refresh_token',
      refresh_token: signedIn.body.refresh_token,
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    expect(refreshed.status).toBe(503);
    expect(refreshed.body.error).toBe('temporarily_unavailable');
    const userinfo = await fetch(`${idp.url}/application/o/userinfo/`, {
      headers: { Authorization: `Bearer ${signedIn.body.access_token}` },
    });
    expect(userinfo.status).toBe(503);

    const authorize = await fetch((await pkceRequest(app, idp.url, { state: 'outage' })).url, { redirect: 'manual' });
    expect(authorize.status).toBe(303);
    const back = new URL(authorize.headers.get('location')!);
    expect(back.href.startsWith(callback)).toBe(true);
    expect(back.searchParams.get('error')).toBe('temporarily_unavailable');
    expect(back.searchParams.get('state')).toBe('outage');

    const submitted = await submit(pending, page, { email: user.email });
    expect(submitted.status).toBe(503);
    expect(submitted.headers.get('content-type')).toContain('text/html');
    expect(submitted.text).toContain('Briefly unavailable');
    expect(submitted.text).toContain('Try again');
  } finally {
    pg.start();
  }

  // Back: no restart, nothing of the outage written.
  expect(await count('users')).toBe(usersBefore);
  expect(await count('outbox')).toBe(outboxBefore);
  let ready = 0;
  for (let i = 0; i < 50 && ready !== 200; i++) {
    ready = (await fetch(`${idp.url}/-/health/ready/`)).status;
    if (ready !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(ready).toBe(200);
  expect(
    (
      await api('/users/', {
        method: 'POST',
        body: JSON.stringify({ username: 'after@example.com', email: 'after@example.com', name: 'After' }),
      })
    ).status,
  ).toBe(201);
  const form = formOf(page);
  const passwordPage = await pending.request(form.action, { form: { ...form.fields, email: user.email } });
  expect(passwordPage.text).toContain('Enter your password');
  const done = await pending.follow(await submit(pending, passwordPage, { password: PASSWORD }), callback);
  expect(done).toBeInstanceOf(URL);
  expect((done as URL).searchParams.get('code')).toEqual(expect.any(String));
}, 60_000);
