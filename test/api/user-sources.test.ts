/** GET /core/users/{pk}/sources/ and DELETE …/sources/{source}/: a user's links to upstream identity providers, on each store. */
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { linkSource } from '../../src/domain/source-links.js';

describe.each(engines)('user links to upstream identity providers on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(async () => {
    await s.close();
  });

  test('listed by source; removed one at a time with an audit event; 404 for an unknown user or link', async () => {
    const created = await s.api('/api/v3/core/users/', { json: { username: 'fed@example.com', email: 'fed@example.com', name: 'Fed' } });
    const pk = created.body.pk as number;
    const user = (await s.db.store.users.findById(pk))!;
    await expect(s.api(`/api/v3/core/users/${pk}/sources/`)).resolves.toMatchObject({ status: 200, body: { results: [] } });
    await linkSource(s.db.store, user, { source: 'okta', subject: '00u1' }, 'proof');
    await linkSource(s.db.store, user, { source: 'github', subject: '42' }, 'proof');

    const listed = await s.api(`/api/v3/core/users/${pk}/sources/`);
    expect(listed.status).toBe(200);
    expect(listed.body.results).toEqual([
      { source: 'github', subject: '42', created_at: expect.any(String), last_used_at: null },
      { source: 'okta', subject: '00u1', created_at: expect.any(String), last_used_at: null },
    ]);

    expect((await s.api(`/api/v3/core/users/${pk}/sources/github/`, { method: 'DELETE' })).status).toBe(204);
    expect((await s.api(`/api/v3/core/users/${pk}/sources/`)).body.results.map((link: { source: string }) => link.source)).toEqual([
      'okta',
    ]);
    await expect(s.db.store.sourceLinks.find('github', '42')).resolves.toBeUndefined();
    const trail = await s.db.store.audit.list({ user: user.uuid, action: 'source.unlinked' }, { offset: 0, limit: 10 });
    expect(trail.rows).toEqual([expect.objectContaining({ actor_type: 'api_token', details: { source: 'github' } })]);

    expect(await s.api(`/api/v3/core/users/${pk}/sources/github/`, { method: 'DELETE' })).toMatchObject({
      status: 404,
      body: { detail: 'Not found.' },
    });
    expect((await s.api(`/api/v3/core/users/999999/sources/`)).status).toBe(404);
    expect((await s.api(`/api/v3/core/users/${pk}/sources/Not_A_Slug/`, { method: 'DELETE' })).status).toBe(404);
    const readOnly = await s.token(['users:read']);
    expect((await s.api(`/api/v3/core/users/${pk}/sources/okta/`, { method: 'DELETE', token: readOnly })).status).toBe(403);
  });
});
