/** Spec §4.2 users operations through real HTTP on each store engine. */
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(engines)('users API on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(async () => {
    await s.close();
  });

  const create = (n: string, extra: Record<string, unknown> = {}) =>
    s.api('/api/v3/core/users/', { json: { username: `${n}@example.com`, email: `${n}@example.com`, name: `User ${n}`, ...extra } });

  test('create → 201 with the created user; get returns it with last_login null and attributes', async () => {
    const created = await create('ada', { attributes: { first_name: 'Ada', last_name: 'Lovelace' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username: 'ada@example.com', email: 'ada@example.com', name: 'User ada', is_active: true });
    expect(created.body.pk).toEqual(expect.any(Number));
    expect(created.body.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const got = await s.api(`/api/v3/core/users/${created.body.pk}/`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...created.body, last_login: null, attributes: { first_name: 'Ada', last_name: 'Lovelace' }, groups: [] });
  });

  test('create inactive, and with groups to join', async () => {
    const group = await s.api('/api/v3/core/groups/', { json: { name: 'joiners' } });
    const created = await create('joiner', { is_active: false, groups: [group.body.pk] });
    expect(created.status).toBe(201);
    expect(created.body.is_active).toBe(false);
    expect((await s.api(`/api/v3/core/groups/${group.body.pk}/`)).body.users).toEqual([created.body.pk]);
  });

  test('joining groups on create needs groups:write: with users:write alone → 403 and no user; with both → 201', async () => {
    const group = await s.api('/api/v3/core/groups/', { json: { name: 'access-by-create' } });
    const usersOnly = await s.token(['users:write', 'users:read']);
    const body = { username: 'sneaky@example.com', email: 'sneaky@example.com', name: 'Sneaky', groups: [group.body.pk] };
    expect(await s.api('/api/v3/core/users/', { token: usersOnly, json: body })).toMatchObject({
      status: 403,
      body: {
        detail: 'You do not have permission to perform this action (the token lacks the groups:write scope, which joining groups needs).',
      },
    });
    expect((await s.api('/api/v3/core/users/?email=sneaky@example.com')).body.pagination.count).toBe(0);
    expect((await s.api(`/api/v3/core/groups/${group.body.pk}/`)).body.users).toEqual([]);
    // No group to join needs no group scope.
    expect((await s.api('/api/v3/core/users/', { token: usersOnly, json: { ...body, groups: [] } })).status).toBe(201);

    const both = await s.token(['users:write', 'groups:write']);
    const created = await s.api('/api/v3/core/users/', { token: both, json: { ...body, username: 'member', email: 'member@example.com' } });
    expect(created.status).toBe(201);
    expect((await s.api(`/api/v3/core/groups/${group.body.pk}/`)).body.users).toEqual([created.body.pk]);
  });

  test('create validation: required fields, formats, unknown fields, unknown groups → 400 field map, nothing written', async () => {
    const bad = await s.api('/api/v3/core/users/', { json: { email: 'not-an-email', name: '', is_active: 'yes', extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      username: ['This field is required.'],
      email: ['Enter a valid email address.'],
      name: ['This field may not be blank.'],
      is_active: ['Must be a valid boolean.'],
      extra: ['Unknown field.'],
    });
    const ghost = '00000000-0000-4000-8000-000000000000';
    const noGroup = await create('ghostly', { groups: [ghost] });
    expect(noGroup).toMatchObject({ status: 400, body: { groups: [`Group ${ghost} does not exist.`] } });
    expect((await s.api('/api/v3/core/users/?email=ghostly@example.com')).body.pagination.count).toBe(0);
    const notObject = await s.api('/api/v3/core/users/', { json: [1] });
    expect(notObject).toMatchObject({ status: 400, body: { non_field_errors: [expect.stringContaining('Expected a dictionary')] } });
  });

  test('duplicate e-mail (any case) or username → 400', async () => {
    await create('dup');
    expect(await create('dup2', { email: 'DUP@example.com' })).toMatchObject({
      status: 400,
      body: { email: ['A user with this email already exists.'] },
    });
    expect(await create('dup3', { username: 'Dup@Example.com' })).toMatchObject({
      status: 400,
      body: { username: ['A user with this username already exists.'] },
    });
  });

  test('20 concurrent creates of one e-mail: exactly one 201, the rest 400', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(`racer${i}`, { email: 'racer@example.com' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400).map((r) => r.body)).toEqual(
      Array(19).fill({ email: ['A user with this email already exists.'] }),
    );
  });

  test('PATCH updates any subset; read-only fields are ignored; groups are create-only', async () => {
    const { body: user } = await create('patchy');
    const patched = await s.api(`/api/v3/core/users/${user.pk}/`, {
      method: 'PATCH',
      json: { name: 'Patched Name', attributes: { avatar: 'https://x/a.png' }, pk: 999, uuid: 'x' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      pk: user.pk,
      uuid: user.uuid,
      name: 'Patched Name',
      email: 'patchy@example.com',
      attributes: { avatar: 'https://x/a.png' },
    });
    const groups = await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { groups: [] } });
    expect(groups.status).toBe(400);
    expect(groups.body.groups[0]).toContain('add_user');
    const invalid = await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { email: 'nope', name: 'Not Saved' } });
    expect(invalid).toMatchObject({ status: 400, body: { email: ['Enter a valid email address.'] } });
    expect((await s.api(`/api/v3/core/users/${user.pk}/`)).body.name).toBe('Patched Name');
  });

  test('deactivate and reactivate with PATCH is_active', async () => {
    const { body: user } = await create('sleeper');
    const off = await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { is_active: false } });
    expect(off).toMatchObject({ status: 200, body: { pk: user.pk, is_active: false } });
    expect((await s.api(`/api/v3/core/users/${user.pk}/`)).body.is_active).toBe(false);
    const on = await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { is_active: true } });
    expect(on.body.is_active).toBe(true);
  });

  test('email_verified: false on create unless given; PATCH sets it and emits user_updated naming it; a new e-mail clears it', async () => {
    const { body: user } = await create('verify');
    expect(user.email_verified).toBe(false);
    expect((await create('preverified', { email_verified: true })).body.email_verified).toBe(true);
    const events = () =>
      s.db.database.db.selectFrom('outbox').select(['type', 'body']).where('user_uuid', '=', user.uuid).orderBy('seq').execute();
    const before = (await events()).length;

    const verified = await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { email_verified: true } });
    expect(verified).toMatchObject({ status: 200, body: { email_verified: true } });
    expect((await s.api(`/api/v3/core/users/${user.pk}/`)).body.email_verified).toBe(true);
    const after = await events();
    expect(after.slice(before).map((row) => [row.type, JSON.parse(row.body).data.changed])).toEqual([['user_updated', ['email_verified']]]);

    // The same value again changes nothing and emits nothing.
    await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { email_verified: true } });
    expect(await events()).toHaveLength(after.length);

    const moved = await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { email: 'verify-new@example.com' } });
    expect(moved.body.email_verified).toBe(false);
    const vouched = await s.api(`/api/v3/core/users/${user.pk}/`, {
      method: 'PATCH',
      json: { email: 'verify-3@example.com', email_verified: true },
    });
    expect(vouched.body.email_verified).toBe(true);
    expect(await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { email_verified: 'yes' } })).toMatchObject({
      status: 400,
      body: { email_verified: ['Must be a valid boolean.'] },
    });
  });

  test('PATCH to a taken e-mail → 400 and nothing changes', async () => {
    await create('taken');
    const { body: other } = await create('taker');
    const clash = await s.api(`/api/v3/core/users/${other.pk}/`, {
      method: 'PATCH',
      json: { email: 'TAKEN@example.com', name: 'Changed' },
    });
    expect(clash).toMatchObject({ status: 400, body: { email: ['A user with this email already exists.'] } });
    expect((await s.api(`/api/v3/core/users/${other.pk}/`)).body).toMatchObject({ email: 'taker@example.com', name: 'User taker' });
  });

  test('DELETE → 204, then 404', async () => {
    const { body: user } = await create('goner');
    expect((await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'DELETE' })).status).toBe(204);
    expect(await s.api(`/api/v3/core/users/${user.pk}/`)).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    expect((await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'DELETE' })).status).toBe(404);
  });

  test('unknown or malformed pk → 404 Not found.', async () => {
    for (const pk of ['999999', 'abc', '-1', '1.5', '99999999999']) {
      expect(await s.api(`/api/v3/core/users/${pk}/`)).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    }
    expect((await s.api('/api/v3/core/users/999999/', { method: 'PATCH', json: { name: 'x' } })).status).toBe(404);
  });
});
