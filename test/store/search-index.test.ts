/**
 * Substring search must stay indexed at 100k users: the planner uses the pg_trgm GIN indexes for the
 * repository's search predicate (lower(name) / lower(email) LIKE '%term%') on both engines.
 */
import { sql } from 'kysely';
import { engines, openTestDatabase, type TestDatabase } from '../helpers/database.js';

describe.each(engines)('search at 100k users on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(engine);
    await sql`
      insert into users (username, email, name, attributes)
      select 'user' || i || '@example.com', 'user' || i || '@example.com', 'Person Number ' || i, '{}'
      from generate_series(1, 100000) as i`.execute(t.database.db);
    await t.store.users.insert({ username: 'needle@example.com', email: 'needle@example.com', name: 'Zebulon Quartermain' });
    await sql`analyze users`.execute(t.database.db);
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  const plan = async (query: ReturnType<typeof sql>) =>
    (await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(t.database.db)).rows.map((r) => r['QUERY PLAN']).join('\n');

  test('the repository finds matches by name and e-mail', async () => {
    const byName = await t.store.users.list({ search: 'quarterm' }, { offset: 0, limit: 20 });
    expect(byName.rows.map((r) => r.email)).toEqual(['needle@example.com']);
    const byEmail = await t.store.users.list({ search: 'user99999@' }, { offset: 0, limit: 20 });
    expect(byEmail.total).toBe(1);
  });

  test('after a bulk import the trigram indexes hold a short pending list (every search reads it whole)', async () => {
    const { rows } = await sql<{ relname: string; reloptions: string[] | null }>`
      select relname, reloptions from pg_class where relname in ('users_name_trgm', 'users_email_trgm') order by relname`.execute(
      t.database.db,
    );
    expect(rows).toEqual([
      { relname: 'users_email_trgm', reloptions: ['gin_pending_list_limit=256'] },
      { relname: 'users_name_trgm', reloptions: ['gin_pending_list_limit=256'] },
    ]);
    if (engine !== 'postgres') return; // pgstattuple is a server extension
    await sql`create extension if not exists pgstattuple`.execute(t.database.db);
    for (const index of ['users_name_trgm', 'users_email_trgm']) {
      const {
        rows: [stats],
      } = await sql<{ pending_pages: number }>`select pending_pages from pgstatginindex(${index}::regclass)`.execute(t.database.db);
      expect(stats!.pending_pages).toBeLessThanOrEqual(256 / 8); // at most 256 kB of 8 kB pages (PostgreSQL's default lets 4 MB wait)
    }
  });

  test('name and e-mail substring predicates use the trigram indexes', async () => {
    const pattern = '%quarterm%';
    const text = await plan(sql`select count(*) from users where lower(name) like ${pattern} or lower(email) like ${pattern}`);
    expect(text).toContain('users_name_trgm');
    expect(text).toContain('users_email_trgm');
    expect(text).not.toMatch(/Seq Scan/);
  });

  test('exact e-mail uses the unique index', async () => {
    const text = await plan(sql`select id from users where lower(email) = ${'needle@example.com'}`);
    expect(text).toContain('users_email_key');
  });
});
