/**
 * The database statements each hot request makes, on PostgreSQL (the log is printed; the bounds are the issue's
 * rules): a UserInfo looks its token up once, and the replica's read cache answers the grant and the user (then the
 * token too); a refresh is one write at the replica that issued its token; a single sign-on authorization writes
 * only its code and its exchange once; discovery and JWKS touch no database; a whole password sign-in makes 14. A
 * statement here is a round trip to PostgreSQL.
 */
import { createPostgresDatabase } from '../helpers/database.js';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, pkceRequest, redeemCode } from '../helpers/http-client.js';

const serverUrl = process.env.TEST_DATABASE_URL;
const describePostgres = serverUrl ? describe : describe.skip;

describePostgres('database round trips per hot request (postgres)', () => {
  const statements: string[] = [];
  let recording = false;
  let idp: OidcTestServer;
  let tokens: { access_token: string; refresh_token: string };
  let browser: CookieClient;

  beforeAll(async () => {
    const { url, drop } = await createPostgresDatabase();
    const database = await openDatabase({ url, onQuery: (sql) => recording && statements.push(sql) });
    await migrateToLatest(database.db);
    const db = {
      engine: 'postgres' as const,
      database,
      url,
      store: createStore(database.db),
      close: async () => {
        await database.close();
        await drop();
      },
    };
    idp = await startOidcServer('postgres', 'http://127.0.0.1:1/cb', [{ slug: 'wiki', access_group: 'staff' }], { db });
    const user = await idp.user({ groups: [await idp.groupUuid('staff')] });
    browser = new CookieClient();
    const signIn = await httpSignIn(browser, idp.apps.wiki!, idp.url, user.email, PASSWORD);
    tokens = (await redeemCode(idp.apps.wiki!, idp.url, signIn)).body;
  });
  afterAll(async () => {
    await idp?.close();
    await idp?.db.close();
  });

  async function recorded(request: () => Promise<Response>): Promise<{ status: number; body: any; sql: string[] }> {
    await new Promise((resolve) => setTimeout(resolve, 50)); // let earlier requests' writes settle
    statements.length = 0;
    recording = true;
    const response = await request();
    const body = await response.json();
    recording = false;
    const sql = [...statements];
    console.log(
      `${response.url.replace(idp.url, '')}: ${sql.length} statements\n  ${sql.map((s) => s.replace(/\s+/g, ' ').slice(0, 140)).join('\n  ')}`,
    );
    return { status: response.status, body, sql };
  }
  const tokenLookups = (sql: string[]) => sql.filter((s) => /from "oidc_payloads"/.test(s) && /"model" = \$1/.test(s)).length;
  const basic = `Basic ${Buffer.from('client-wiki:secret-wiki-0123456789abcdef').toString('base64')}`;

  test('discovery and JWKS make no database round trip', async () => {
    expect((await recorded(() => fetch(`${idp.url}/application/o/wiki/.well-known/openid-configuration`))).sql).toEqual([]);
    expect((await recorded(() => fetch(`${idp.url}/application/o/wiki/jwks/`))).sql).toEqual([]);
  });

  test('UserInfo: nothing read, the replica issued the token and keeps it, the grant and the user', async () => {
    const userinfo = () =>
      recorded(() => fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } }));
    const first = await userinfo();
    expect(first.status).toBe(200);
    expect(first.body.email).toEqual(expect.any(String));
    expect(first.sql).toEqual([]);
  });

  test('a refresh grant at the replica that issued the refresh token: one write (its consume and the new tokens, one statement)', async () => {
    const { status, body, sql } = await recorded(() =>
      fetch(`${idp.url}/application/o/token/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString(),
      }),
    );
    expect(status).toBe(200);
    tokens = body;
    expect(sql).toHaveLength(1);
    expect(sql[0]).toMatch(/^with c0 as \(update oidc_payloads set consumed_at .* insert into oidc_payloads/s);
  });

  test('with the cache off (database.cache_entries 0) UserInfo still reads its token once: token, grant, user with groups; a refresh reads its token', async () => {
    const uncached = await startOidcServer('postgres', 'http://127.0.0.1:1/cb', [{ slug: 'wiki', access_group: 'staff' }], {
      db: idp.db,
      overrides: { database: { cache_entries: 0 } },
    });
    try {
      const { status, sql } = await recorded(() =>
        fetch(`${uncached.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } }),
      );
      expect(status).toBe(200);
      expect(sql).toHaveLength(3);
      expect(tokenLookups(sql)).toBe(2); // AccessToken and Grant, each once
      expect(sql.filter((s) => /from "users"/.test(s) && /"memberships"/.test(s))).toHaveLength(1);
      const refreshed = await recorded(() =>
        fetch(`${uncached.url}/application/o/token/`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString(),
        }),
      );
      expect(refreshed.status).toBe(200);
      tokens = refreshed.body;
      expect(refreshed.sql).toHaveLength(4); // refresh token, grant, user with groups; then the one write
    } finally {
      await uncached.close();
    }
  });

  test('a whole password sign-in, authorize to code exchange: 15 statements, the person read once per step', async () => {
    const user = await idp.user({ groups: [await idp.groupUuid('staff')] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    statements.length = 0;
    recording = true;
    const signIn = await httpSignIn(new CookieClient(), idp.apps.wiki!, idp.url, user.email, PASSWORD);
    const { status } = await redeemCode(idp.apps.wiki!, idp.url, signIn);
    recording = false;
    const sql = [...statements];
    console.log(`sign-in: ${sql.length} statements\n  ${sql.map((s) => s.replace(/\s+/g, ' ').slice(0, 200)).join('\n  ')}`);
    expect(status).toBe(200);
    // The engine's interaction: written at the authorization, read by each of the four requests that carry it
    // (the e-mail page, its post, the password post, the resume) and again just before the result is saved (a
    // resume may have ended it while bcrypt ran), deleted at the resume.
    const interactionReads = sql.filter((s) => /^select .* from "oidc_payloads"/s.test(s));
    expect(interactionReads).toHaveLength(5);
    // The e-mail and password steps each read the person once: user, hash and second factors together.
    const records = sql.filter((s) => /"password_hash"/.test(s));
    expect(records).toHaveLength(2);
    expect(records.every((s) => /exists \(select 1 as "one" from "totp_credentials"/.test(s) && /from "passkeys"/.test(s))).toBe(true);
    // The access-group check reads the user with their groups, which the replica then keeps for the code exchange.
    expect(sql.filter((s) => /"memberships"/.test(s))).toHaveLength(1);
    // last_login and the audit event: one statement, no transaction around it.
    expect(
      sql.filter((s) => /^with "login" as \(update "users" set "last_login"/.test(s) && /insert into "audit_events"/.test(s)),
    ).toHaveLength(1);
    expect(sql.filter((s) => /^(begin|commit)/i.test(s.trim()))).toEqual([]);
    // The new session's browser, for the account page (one statement, after the engine answered the resume).
    expect(sql.filter((s) => /^insert into "session_devices"/.test(s))).toHaveLength(1);
    expect(sql).toHaveLength(15);
  });

  test('a sign-in with both fields of the first page filled in: 13 statements (no password page, one read of the person)', async () => {
    const user = await idp.user({ groups: [await idp.groupUuid('staff')] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    statements.length = 0;
    recording = true;
    const signIn = await httpSignIn(new CookieClient(), idp.apps.wiki!, idp.url, user.email, PASSWORD, { firstPageOnly: true });
    const { status } = await redeemCode(idp.apps.wiki!, idp.url, signIn);
    recording = false;
    const sql = [...statements];
    expect(status).toBe(200);
    expect(sql.filter((s) => /^select .* from "oidc_payloads"/s.test(s))).toHaveLength(4);
    expect(sql.filter((s) => /"password_hash"/.test(s))).toHaveLength(1);
    expect(sql).toHaveLength(13);
  });

  /** An SSO authorization of the signed-in browser: its statements and the code. */
  async function ssoAuthorize() {
    const request = await pkceRequest(idp.apps.wiki!, idp.url);
    await new Promise((resolve) => setTimeout(resolve, 50));
    statements.length = 0;
    recording = true;
    const response = await browser.request(request.url.href);
    recording = false;
    const sql = [...statements];
    console.log(`authorize: ${sql.length} statements\n  ${sql.map((s) => s.replace(/\s+/g, ' ').slice(0, 160)).join('\n  ')}`);
    expect(response.status).toBe(303);
    return { sql, request, code: new URL(response.headers.get('location')!).searchParams.get('code')! };
  }

  test('single sign-on: the authorization of a signed-in browser reads nothing and writes only its code; the code exchange reads nothing and writes once', async () => {
    // The replica keeps the session it saved at the sign-in, the grant and the user. The grant and the session,
    // saved again as they were (the session's expiry a moment later), are not written (engine-storage/unchanged-save.ts).
    for (let i = 0; i < 2; i += 1) {
      const { sql } = await ssoAuthorize();
      expect(sql).toHaveLength(1);
      expect(sql[0]).toMatch(/^\s*insert into oidc_payloads .* on conflict/s);
      expect(sql[0]).not.toMatch(/\), \(/); // one row: the code
    }
    const second = await ssoAuthorize();

    const { status, sql } = await recorded(() =>
      fetch(`${idp.url}/application/o/token/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: second.code,
          redirect_uri: idp.apps.wiki!.redirect_uri,
          code_verifier: second.request.verifier,
        }).toString(),
      }),
    );
    expect(status).toBe(200);
    // The code is kept as issued, the grant as read: the one write, nothing read.
    expect(sql).toHaveLength(1);
    expect(tokenLookups(sql)).toBe(0);
    expect(sql[0]).toMatch(/^\s*with c0 as \(update oidc_payloads/);
  });
});
