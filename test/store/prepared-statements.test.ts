/**
 * The token paths' statements run prepared on PostgreSQL (src/store/prepared-statements.ts): after they have run
 * on a connection, that connection holds them by name; statements nobody registered stay unnamed. One pooled
 * connection, so every statement of the test runs on the connection it then asks.
 */
import { sql } from 'kysely';
import { createPostgresDatabase } from '../helpers/database.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import type { Store } from '../../src/store/contract.js';

const describePostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

describePostgres('prepared statements (postgres)', () => {
  let database: Database;
  let store: Store;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    database = await openDatabase({ url: created.url, poolSize: 1 });
    await migrateToLatest(database.db);
    store = createStore(database.db);
  });
  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  const prepared = async () =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(database.db)).rows;
  const row = (model: string, id: string) => ({
    model,
    id,
    payload: { jti: id },
    grant_id: 'g',
    user_code: null,
    uid: null,
    account_id: 'a',
    client_id: 'c',
    expires_at: new Date(Date.now() + 60_000),
  });

  test('a token lookup, a user with groups and a redeem are prepared once and then reused; other statements are not', async () => {
    const user = await store.users.insert({ username: 'ada', email: 'ada@example.com', name: 'Ada' });
    await store.oidcPayloads.upsert(row('RefreshToken', 'rt-1'));
    for (let i = 0; i < 3; i += 1) {
      expect(await store.oidcPayloads.find('RefreshToken', 'rt-1', new Date())).toMatchObject({ id: 'rt-1' });
      expect((await store.users.findByUuidWithGroups(user.uuid))?.user.email).toBe('ada@example.com');
    }
    expect(
      await store.oidcPayloads.redeem(
        { model: 'RefreshToken', id: 'rt-1' },
        [row('AccessToken', 'at-1'), row('RefreshToken', 'rt-2')],
        new Date(),
      ),
    ).toMatchObject({ won: true });
    expect(
      await store.oidcPayloads.redeem(
        { model: 'RefreshToken', id: 'rt-2' },
        [row('AccessToken', 'at-2'), row('RefreshToken', 'rt-3')],
        new Date(),
      ),
    ).toMatchObject({ won: true });

    const statements = await prepared();
    const named = (pattern: RegExp) => statements.filter((s) => pattern.test(s.statement));
    expect(named(/from "oidc_payloads" where "model" = \$1 .* "id" = \$3/s)).toHaveLength(1);
    expect(named(/from "users"/)).toHaveLength(1);
    expect(named(/update oidc_payloads set consumed_at/)).toHaveLength(1); // both redeems: one statement, prepared once
    expect(statements.every((s) => /^idp_\d+$/.test(s.name))).toBe(true);
    expect(named(/insert into "users"/)).toEqual([]);
  });

  test('redeems made at the same moment share one statement, and each gets its own answer', async () => {
    await store.oidcPayloads.upsert(row('AuthorizationCode', 'code-1'));
    await store.oidcPayloads.upsert(row('AuthorizationCode', 'code-2'));
    const [first, second, again] = await Promise.all([
      store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'code-1' }, [row('AccessToken', 'at-c1')], new Date()),
      store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'code-2' }, [row('AccessToken', 'at-c2')], new Date()),
      // The same code again, in the same moment: it waits for the next statement, and loses.
      store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'code-1' }, [row('AccessToken', 'at-c3')], new Date()),
    ]);
    expect(first).toEqual({ won: true, inserted: [{ model: 'AccessToken', id: 'at-c1' }] });
    expect(second).toEqual({ won: true, inserted: [{ model: 'AccessToken', id: 'at-c2' }] });
    expect(again).toEqual({ won: false, inserted: [] });
    expect(await store.oidcPayloads.find('AccessToken', 'at-c3', new Date())).toBeUndefined();
    expect((await prepared()).filter((s) => /with c0 as .* c1 as/s.test(s.statement))).toHaveLength(1);
  });
});
