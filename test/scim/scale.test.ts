/**
 * SCIM at 100k users: `userName eq` and `externalId eq` (what Entra ID and Okta ask before every create) are index
 * lookups in the very SQL the directory runs, a group's displayName too, and a client pages through everyone
 * without the service reading the users before its page.
 */
import { CompiledQuery, sql } from 'kysely';
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { scimClient, type ScimCall } from '../helpers/scim.js';
import { matchingGroups, matchingUsers } from '../../src/store/directory-repository.js';
import type { Condition } from '../../src/store/contract.js';
import { parseFilter } from '../../src/scim/filter.js';
import { groupCondition, userCondition } from '../../src/scim/resolve-filter.js';

const USERS = 100_000;

describe.each(engines)('SCIM at 100k users on %s', (engine) => {
  let s: TestServer;
  let scim: ScimCall;
  beforeAll(async () => {
    s = await startTestServer(engine);
    scim = await scimClient(s);
    const db = s.db.database.db;
    await sql`
      insert into users (username, email, name, attributes, external_id)
      select 'user' || i || '@example.com', 'user' || i || '@example.com', 'Person Number ' || i, '{}', 'ext-' || i
      from generate_series(1, ${USERS}::int) as i`.execute(db);
    await sql`insert into groups (name, attributes) select 'Group ' || i, '{}' from generate_series(1, 1000) as i`.execute(db);
    await sql`analyze users`.execute(db);
    await sql`analyze groups`.execute(db);
  }, 180_000);
  afterAll(async () => {
    await s.close();
  });

  const plan = async (query: { compile(): CompiledQuery }) => {
    const compiled = query.compile();
    const result = await s.db.database.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]),
    );
    return result.rows.map((row) => row['QUERY PLAN']).join('\n');
  };
  const users = (filter: string) => matchingUsers(s.db.database.db, userCondition(parseFilter(filter))).select('id');
  const groups = (filter: string) => matchingGroups(s.db.database.db, groupCondition(parseFilter(filter))).select('uuid');

  test('userName eq uses the unique index on lower(username)', async () => {
    const text = await plan(users('userName eq "USER77777@example.com"'));
    expect(text).toContain('users_username_key');
    expect(text).not.toMatch(/Seq Scan/);
  });

  test('externalId eq uses the index of migration 0017', async () => {
    const text = await plan(users('externalId eq "ext-77777"'));
    expect(text).toContain('users_external_id');
    expect(text).not.toMatch(/Seq Scan/);
  });

  test('emails[type eq "work" and value eq …] and id eq are index lookups too; displayName eq on groups', async () => {
    expect(await plan(users('emails[type eq "work" and value eq "user5@example.com"]'))).toContain('users_email_key');
    const id = '6f1c2a3b-0000-4000-8000-000000000000';
    expect(await plan(users(`id eq "${id}"`))).toContain('users_uuid_key');
    expect(await plan(groups('displayName eq "group 7"'))).toContain('groups_name_key');
    const where: Condition = { kind: 'compare', field: 'external_id', op: 'eq', value: 'x', caseExact: true };
    expect(await plan(matchingGroups(s.db.database.db, where).select('uuid'))).toContain('groups_external_id');
  });

  test('the filters answer over HTTP: found and not found', async () => {
    const found = await scim(`/Users?filter=${encodeURIComponent('externalId eq "ext-99999"')}`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ userName: 'user99999@example.com', externalId: 'ext-99999' }] });
    const none = await scim(`/Users?filter=${encodeURIComponent('userName eq "user100001@example.com"')}`);
    expect(none.body.totalResults).toBe(0);
  });

  test('paging to the last page: totalResults counts all, the page holds the last users', async () => {
    const last = await scim(`/Users?startIndex=${USERS - 1}&count=100&attributes=userName`);
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ totalResults: USERS, startIndex: USERS - 1, itemsPerPage: 2 });
    expect(last.body.Resources.map((r: { userName: string }) => r.userName)).toEqual(['user99999@example.com', 'user100000@example.com']);
    // A page walks the primary key in order up to its end; it neither sorts the table nor reads past the page.
    const page = matchingUsers(s.db.database.db, { kind: 'constant', value: true }).select('id').orderBy('id').offset(200).limit(100);
    const text = await plan(page);
    expect(text).toContain('users_pkey');
    expect(text).not.toMatch(/Sort/);
  });
});
