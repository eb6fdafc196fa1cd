/**
 * A change emits its event only when it changed something, however many callers race: parallel deletes and
 * deactivations of one resource leave exactly one event in the outbox, and the losers get 404 or an
 * idempotent answer without an event.
 */
import { sql } from 'kysely';
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(engines)('concurrent changes emit once (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(async () => s?.close());

  const events = async (type: string, userUuid: string) => {
    const rows = await sql<{ n: number }>`select count(*)::int as n from outbox where type = ${type} and user_uuid = ${userUuid}`.execute(
      s.db.database.db,
    );
    return rows.rows[0]!.n;
  };
  const newUser = async (n: string, groups: string[] = []) =>
    (await s.api('/api/v3/core/users/', { json: { username: `${n}@example.com`, email: `${n}@example.com`, name: n, groups } })).body;
  const race = <T>(count: number, call: () => Promise<T>) => Promise.all(Array.from({ length: count }, call));

  test('5 parallel DELETE /groups/{pk}/: one 204, four 404, one "removed" event per member', async () => {
    const group = (await s.api('/api/v3/core/groups/', { json: { name: 'doomed' } })).body.pk;
    const member = await newUser('doomed-member', [group]);
    const statuses = (await race(5, () => s.api(`/api/v3/core/groups/${group}/`, { method: 'DELETE' }))).map((r) => r.status).sort();
    expect(statuses).toEqual([204, 404, 404, 404, 404]);
    const removals = await sql<{ n: number }>`select count(*)::int as n from outbox where type = 'group_membership_change'
      and user_uuid = ${member.uuid} and body like '%"removed"%'`.execute(s.db.database.db);
    expect(removals.rows[0]!.n).toBe(1);
  });

  test('5 parallel deactivations: every caller gets the user, one user_deactivated', async () => {
    const user = await newUser('deactivated-racer');
    const answers = await race(5, () => s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { is_active: false } }));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.every((r) => r.body.is_active === false)).toBe(true);
    expect(await events('user_deactivated', user.uuid)).toBe(1);
  });

  test('5 parallel DELETE /users/{pk}/: one 204, four 404, one user_deactivated', async () => {
    const user = await newUser('deleted-racer');
    const statuses = (await race(5, () => s.api(`/api/v3/core/users/${user.pk}/`, { method: 'DELETE' }))).map((r) => r.status).sort();
    expect(statuses).toEqual([204, 404, 404, 404, 404]);
    expect(await events('user_deactivated', user.uuid)).toBe(1);
  });

  test('parallel add_user and remove_user of one membership: one event each way', async () => {
    const group = (await s.api('/api/v3/core/groups/', { json: { name: 'racy' } })).body.pk;
    const user = await newUser('membership-racer');
    expect((await race(5, () => s.api(`/api/v3/core/groups/${group}/add_user/`, { json: { pk: user.pk } }))).map((r) => r.status)).toEqual([
      204, 204, 204, 204, 204,
    ]);
    expect(
      (await race(5, () => s.api(`/api/v3/core/groups/${group}/remove_user/`, { json: { pk: user.pk } }))).map((r) => r.status),
    ).toEqual([204, 204, 204, 204, 204]);
    expect(await events('group_membership_change', user.uuid)).toBe(2);
  });
});
