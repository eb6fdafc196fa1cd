/**
 * The database statements each hot request makes, on PostgreSQL (the log is printed; the bounds are the issue's
 * rules): a UserInfo looks its token up once; the user and the access-group check are one read; discovery and
 * JWKS touch no database. A statement here is a round trip to PostgreSQL. What the engine itself writes (a
 * refresh: consume the old token, save the new one and the access token) are separate statements, no transaction.
 */
import { createPostgresDatabase } from '../helpers/database.js';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, redeemCode } from '../helpers/http-client.js';

const serverUrl = process.env.TEST_DATABASE_URL;
const describePostgres = serverUrl ? describe : describe.skip;

describePostgres('database round trips per hot request (postgres)', () => {
  const statements: string[] = [];
  let recording = false;
  let idp: OidcTestServer;
  let tokens: { access_token: string; refresh_token: string };

  beforeAll(async () => {
    const { url, drop } = await createPostgresDatabase();
    const database = await openDatabase({ url, onQuery: (sql) => recording && statements.push(sql) });
    await migrateToLatest(database.db);
    const db = { engine: 'postgres' as const, database, url, store: createStore(database.db), close: async () => { await database.close(); await drop(); } };
    idp = await startOidcServer('postgres', 'http://127.0.0.1:1/cb', [{ slug: 'wiki', access_group: 'staff' }], { db });
    const user = await idp.user({ groups: [await idp.groupUuid('staff')] });
    const signIn = await httpSignIn(new CookieClient(), idp.apps.wiki!, idp.url, user.email, PASSWORD);
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
    console.log(`${response.url.replace(idp.url, '')}: ${sql.length} statements\n  ${sql.map((s) => s.replace(/\s+/g, ' ').slice(0, 140)).join('\n  ')}`);
    return { status: response.status, body, sql };
  }
  const tokenLookups = (sql: string[]) => sql.filter((s) => /from "oidc_payloads"/.test(s) && /"model" = \$1/.test(s)).length;
  const basic = `Basic ${Buffer.from('client-wiki:secret-wiki-0123456789abcdef').toString('base64')}`;

  test('discovery and JWKS make no database round trip', async () => {
    expect((await recorded(() => fetch(`${idp.url}/application/o/wiki/.well-known/openid-configuration`))).sql).toEqual([]);
    expect((await recorded(() => fetch(`${idp.url}/application/o/wiki/jwks/`))).sql).toEqual([]);
  });

  test('UserInfo: three reads — its access token once, the grant, the user with the access-group check', async () => {
    const { status, body, sql } = await recorded(() => fetch(`${idp.url}/application/o/userinfo/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } }));
    expect(status).toBe(200);
    expect(body.email).toEqual(expect.any(String));
    expect(sql).toHaveLength(3);
    expect(tokenLookups(sql)).toBe(2); // AccessToken and Grant, each once
    expect(sql.filter((s) => /from "users"/.test(s) && /"memberships"/.test(s))).toHaveLength(1);
  });

  test('a refresh grant: three reads (token, grant, user with group) and the engine\'s three writes', async () => {
    const { status, body, sql } = await recorded(() => fetch(`${idp.url}/application/o/token/`, {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString(),
    }));
    expect(status).toBe(200);
    tokens = body;
    expect(sql.filter((s) => /^select/i.test(s))).toHaveLength(3);
    expect(tokenLookups(sql)).toBe(2); // RefreshToken and Grant, each once
    expect(sql.filter((s) => /^(update|insert)/i.test(s))).toHaveLength(3); // consume, new refresh token, access token
  });
});
