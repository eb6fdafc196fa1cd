/** GET /users/: filters, pagination and its links, query validation. */
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(engines)('user list on %s', (engine) => {
  let s: TestServer;
  let staff: string;
  let pks: number[];
  beforeAll(async () => {
    s = await startTestServer(engine, { issuer: { base_url: 'https://id.example.test' } });
    staff = (await s.api('/api/v3/core/groups/', { json: { name: 'staff' } })).body.pk;
    pks = [];
    for (let i = 1; i <= 25; i++) {
      const res = await s.api('/api/v3/core/users/', {
        json: {
          username: `person${i}@example.com`,
          email: `Person${i}@Example.com`,
          name: i % 5 === 0 ? `Manager Five ${i}` : `Person ${i}`,
          is_active: i % 2 === 1,
          groups: i <= 3 ? [staff] : [],
        },
      });
      pks.push(res.body.pk);
    }
  });
  afterAll(async () => {
    await s.close();
  });

  const list = (query: string) => s.api(`/api/v3/core/users/${query}`);

  test('default page: 20 results in pk order, absolute next link from the configured base URL', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(20);
    expect(res.body.results.map((u: { pk: number }) => u.pk)).toEqual(pks.slice(0, 20));
    expect(res.body.results[0]).toEqual(expect.objectContaining({ last_login: null, attributes: {}, uuid: expect.any(String) }));
    expect(res.body.pagination).toEqual({
      count: 25,
      next: 'https://id.example.test/api/v3/core/users/?page=2',
      previous: null,
      current: 1,
      total_pages: 2,
      start_index: 1,
      end_index: 20,
    });
  });

  test('the Host header never leaks into links', async () => {
    const res = await s.api('/api/v3/core/users/?page_size=10', { headers: { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example' } });
    expect(res.body.pagination.next).toBe('https://id.example.test/api/v3/core/users/?page_size=10&page=2');
  });

  test('second page keeps other parameters in the links', async () => {
    const res = await list('?page_size=10&page=2&is_active=true');
    expect(res.body.pagination).toMatchObject({ count: 13, current: 2, total_pages: 2, next: null });
    expect(res.body.pagination.previous).toBe('https://id.example.test/api/v3/core/users/?page_size=10&page=1&is_active=true');
    expect(res.body.results.map((u: { pk: number }) => u.pk)).toEqual(pks.filter((_, i) => i % 2 === 0).slice(10));
  });

  test('filters: email (exact, any case), search (name or e-mail), is_active, groups', async () => {
    expect((await list('?email=PERSON7@example.COM')).body.results.map((u: { pk: number }) => u.pk)).toEqual([pks[6]]);
    expect((await list('?email=person7')).body.pagination.count).toBe(0);
    expect((await list('?search=manager')).body.results.map((u: { pk: number }) => u.pk)).toEqual([
      pks[4],
      pks[9],
      pks[14],
      pks[19],
      pks[24],
    ]);
    expect((await list('?search=PERSON2')).body.pagination.count).toBe(7); // person2, person20..25 by e-mail
    expect((await list('?is_active=false')).body.pagination.count).toBe(12);
    expect((await list(`?groups=${staff}`)).body.results.map((u: { pk: number }) => u.pk)).toEqual(pks.slice(0, 3));
    expect((await list(`?groups=${staff}&is_active=true`)).body.results.map((u: { pk: number }) => u.pk)).toEqual([pks[0], pks[2]]);
  });

  test('page_size above the maximum is capped at 100', async () => {
    const res = await list('?page_size=500');
    expect(res.body.results).toHaveLength(25);
    expect(res.body.pagination.total_pages).toBe(1);
  });

  test('bad page_size, page, is_active or groups → 400 field errors', async () => {
    for (const size of ['0', '-3', 'abc', '2.5']) {
      const res = await list(`?page_size=${size}`);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['page_size']);
    }
    expect((await list('?page=0')).body).toEqual({ page: ['Ensure this value is greater than or equal to 1.'] });
    expect((await list('?is_active=maybe')).body).toEqual({ is_active: ['Must be a valid boolean.'] });
    expect((await list('?groups=not-a-uuid')).body).toEqual({ groups: ['Must be a valid UUID.'] });
  });

  test('a page past the end → 404 Invalid page.; an empty result is still page 1', async () => {
    expect(await list('?page=3')).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
    const empty = await list('?search=nobody-matches-this');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      pagination: { count: 0, next: null, previous: null, current: 1, total_pages: 1, start_index: 0, end_index: 0 },
      results: [],
    });
  });
});
