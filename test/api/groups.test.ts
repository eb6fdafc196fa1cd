/** Groups: spec §4.2 (get, add_user, remove_user) and the extensions (list, create, patch, delete). */
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(engines)('groups API on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(async () => {
    await s.close();
  });

  const newUser = async (n: string) =>
    (await s.api('/api/v3/core/users/', { json: { username: `${n}@example.com`, email: `${n}@example.com`, name: n } })).body.pk as number;
  const newGroup = async (name: string) => (await s.api('/api/v3/core/groups/', { json: { name } })).body.pk as string;

  test('create → 201; get returns pk, name, users, users_count', async () => {
    const created = await s.api('/api/v3/core/groups/', { json: { name: 'Engineering', attributes: { cost_center: 7 } } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      pk: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Engineering',
      users: [],
      users_count: 0,
      attributes: { cost_center: 7 },
    });
    expect((await s.api(`/api/v3/core/groups/${created.body.pk}/`)).body).toEqual(created.body);
    expect(await s.api('/api/v3/core/groups/', { json: { name: 'engineering' } })).toMatchObject({
      status: 400,
      body: { name: ['A group with this name already exists.'] },
    });
    expect(await s.api('/api/v3/core/groups/', { json: {} })).toMatchObject({ status: 400, body: { name: ['This field is required.'] } });
  });

  test('add_user and remove_user → 204 with no body; membership shows in the group and the user', async () => {
    const group = await newGroup('crew');
    const a = await newUser('crew-a');
    const b = await newUser('crew-b');
    for (const pk of [b, a, a]) {
      const res = await s.api(`/api/v3/core/groups/${group}/add_user/`, { json: { pk } });
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
    }
    expect((await s.api(`/api/v3/core/groups/${group}/`)).body).toMatchObject({ users: [a, b], users_count: 2 });
    expect((await s.api(`/api/v3/core/users/${a}/`)).body.groups).toEqual([group]);

    expect((await s.api(`/api/v3/core/groups/${group}/remove_user/`, { json: { pk: a } })).status).toBe(204);
    expect((await s.api(`/api/v3/core/groups/${group}/remove_user/`, { json: { pk: a } })).status).toBe(204);
    expect((await s.api(`/api/v3/core/groups/${group}/`)).body).toMatchObject({ users: [b], users_count: 1 });
  });

  test('membership errors: unknown user or group → 404, bad body → 400', async () => {
    const group = await newGroup('strict');
    expect(await s.api(`/api/v3/core/groups/${group}/add_user/`, { json: { pk: 987654 } })).toMatchObject({
      status: 404,
      body: { detail: 'Not found.' },
    });
    expect(await s.api('/api/v3/core/groups/00000000-0000-4000-8000-000000000000/add_user/', { json: { pk: 1 } })).toMatchObject({
      status: 404,
      body: { detail: 'Not found.' },
    });
    expect(await s.api('/api/v3/core/groups/not-a-uuid/add_user/', { json: { pk: 1 } })).toMatchObject({
      status: 404,
      body: { detail: 'Not found.' },
    });
    expect(await s.api(`/api/v3/core/groups/${group}/add_user/`, { json: {} })).toMatchObject({
      status: 400,
      body: { pk: ['This field is required.'] },
    });
    expect(await s.api(`/api/v3/core/groups/${group}/add_user/`, { json: { pk: 'one' } })).toMatchObject({
      status: 400,
      body: { pk: ['A valid integer is required.'] },
    });
    expect(await s.api(`/api/v3/core/groups/${group}/add_user/`, { method: 'POST' })).toMatchObject({
      status: 400,
      body: { pk: ['This field is required.'] },
    });
  });

  test('list with search and pagination; patch; delete removes memberships', async () => {
    const g = await newGroup('Listable Alpha');
    await newGroup('Listable Beta');
    const list = await s.api('/api/v3/core/groups/?search=listable&page_size=1');
    expect(list.body.pagination).toMatchObject({ count: 2, total_pages: 2, current: 1 });
    expect(list.body.results.map((r: { name: string }) => r.name)).toEqual(['Listable Alpha']);

    const renamed = await s.api(`/api/v3/core/groups/${g}/`, {
      method: 'PATCH',
      json: { name: 'Renamed Alpha', users: [1], users_count: 9 },
    });
    expect(renamed).toMatchObject({ status: 200, body: { pk: g, name: 'Renamed Alpha' } });
    expect(await s.api(`/api/v3/core/groups/${g}/`, { method: 'PATCH', json: { name: 'listable beta' } })).toMatchObject({
      status: 400,
      body: { name: ['A group with this name already exists.'] },
    });

    const u = await newUser('member-of-deleted');
    await s.api(`/api/v3/core/groups/${g}/add_user/`, { json: { pk: u } });
    expect((await s.api(`/api/v3/core/groups/${g}/`, { method: 'DELETE' })).status).toBe(204);
    expect((await s.api(`/api/v3/core/groups/${g}/`)).status).toBe(404);
    expect((await s.api(`/api/v3/core/users/${u}/`)).body.groups).toEqual([]);
  });
});
