/**
 * /api/v3/admin: API tokens and signing keys over HTTP (scope `admin`) — auth and scope, the create/list/revoke
 * round trip with the tokens really working (or not) on /api/v3/core, key rotation, validation and paging.
 */
import { API_SCOPES } from '../../src/domain/api-tokens.js';
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const TOKEN_FIELDS = ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'revoked_at', 'scopes'];
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** Every admin operation, with a request that would succeed given the scope. */
const operations: Array<[method: string, path: string, json?: unknown]> = [
  ['GET', '/api/v3/admin/tokens/'],
  ['POST', '/api/v3/admin/tokens/', { name: 'denied', scopes: ['users:read'] }],
  ['DELETE', `/api/v3/admin/tokens/${UNKNOWN_ID}/`],
  ['GET', '/api/v3/admin/keys/'],
  ['POST', '/api/v3/admin/keys/rotate/'],
];

describe.each(engines)('admin API on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    // One application signs with EdDSA: the keys are RS256's (always) and EdDSA's.
    s = await startTestServer(engine, {
      applications: [
        {
          slug: 'wiki',
          name: 'Wiki',
          client_id: 'wiki',
          client_secret: 'wiki-secret-0123456789',
          redirect_uris: ['https://wiki.example.com/cb'],
          id_token_signed_response_alg: 'EdDSA',
        },
      ],
    });
  });
  afterAll(async () => {
    await s.close();
  });

  test('401 without a token; 403 naming the admin scope for a token with every other scope; nothing changes', async () => {
    const tokensBefore = (await s.db.store.apiTokens.list()).length;
    const keysBefore = (await s.db.store.signingKeys.list()).map((key) => key.kid);
    const everythingElse = await s.token(API_SCOPES.filter((scope) => scope !== 'admin'));
    for (const [method, path, json] of operations) {
      const anonymous = await s.api(path, { method, token: null, json });
      expect({ method, path, status: anonymous.status, detail: anonymous.body.detail }).toEqual({
        method,
        path,
        status: 401,
        detail: 'Authentication credentials were not provided.',
      });
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="api"');
      const denied = await s.api(path, { method, token: everythingElse, json });
      expect({ method, path, status: denied.status, body: denied.body }).toEqual({
        method,
        path,
        status: 403,
        body: { detail: 'You do not have permission to perform this action (the token lacks the admin scope).' },
      });
    }
    // The token made above is the only new one; the keys are as they were.
    expect((await s.db.store.apiTokens.list()).length).toBe(tokensBefore + 1);
    expect((await s.db.store.signingKeys.list()).map((key) => key.kid)).toEqual(keysBefore);
  });

  test('create → 201 with the secret once; it works on /core with exactly its scopes; list never shows it; revoke → 204, then 401', async () => {
    const created = await s.api('/api/v3/admin/tokens/', { json: { name: ' deploy-bot ', scopes: ['users:read', 'users:read'] } });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'deploy-bot',
      scopes: ['users:read'],
      token: expect.stringMatching(/^idp_[A-Za-z0-9_-]{43}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
    });
    const { id, token } = created.body as { id: string; token: string };

    expect((await s.api('/api/v3/core/users/', { token })).status).toBe(200);
    expect((await s.api('/api/v3/core/groups/', { token })).status).toBe(403);
    expect((await s.api('/api/v3/admin/tokens/', { token })).status).toBe(403);

    const listed = await s.api('/api/v3/admin/tokens/?page_size=100');
    expect(listed.status).toBe(200);
    const row = listed.body.results.find((r: { id: string }) => r.id === id);
    expect(Object.keys(row).sort()).toEqual(TOKEN_FIELDS);
    expect(row).toMatchObject({ name: 'deploy-bot', scopes: ['users:read'], revoked_at: null, last_used_at: expect.any(String) });
    for (const result of listed.body.results) expect(Object.keys(result).sort()).toEqual(TOKEN_FIELDS);
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(JSON.stringify(listed.body)).not.toMatch(/hash/);

    const revoked = await s.api(`/api/v3/admin/tokens/${id}/`, { method: 'DELETE' });
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();
    expect(await s.api('/api/v3/core/users/', { token })).toMatchObject({ status: 401, body: { detail: 'Invalid token.' } });
    const after = (await s.api('/api/v3/admin/tokens/?page_size=100')).body.results.find((r: { id: string }) => r.id === id);
    expect(after.revoked_at).toEqual(expect.any(String));

    // Already revoked, unknown, or not an id at all: 404, like the CLI's "not found".
    for (const path of [`/api/v3/admin/tokens/${id}/`, `/api/v3/admin/tokens/${UNKNOWN_ID}/`, '/api/v3/admin/tokens/not-an-id/']) {
      expect(await s.api(path, { method: 'DELETE' })).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    }
  });

  test('a token may be given the admin scope and expire in whole days', async () => {
    const before = Date.now();
    const created = await s.api('/api/v3/admin/tokens/', { json: { name: 'ops', scopes: ['admin'], expires_in_days: 2 } });
    expect(created.status).toBe(201);
    const expires = Date.parse(created.body.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 2 * 86_400_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 2 * 86_400_000);
    expect((await s.api('/api/v3/admin/keys/', { token: created.body.token })).status).toBe(200);
  });

  test('invalid bodies → 400 field maps (ajv and the domain alike); nothing is created', async () => {
    const before = (await s.db.store.apiTokens.list()).length;
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{}, { name: ['This field is required.'], scopes: ['This field is required.'] }],
      [{ name: '   ', scopes: ['users:read'] }, { name: ['This field may not be blank.'] }],
      [{ name: 'x', scopes: ['everything'] }, { scopes: [`Select one of: ${API_SCOPES.join(', ')}.`] }],
      [{ name: 'x', scopes: 'users:read' }, { scopes: ['Expected a list of items.'] }],
      [{ name: 'x', scopes: [] }, { scopes: ['Give at least one scope.'] }],
      [
        { name: 'x', scopes: ['users:read'], expires_in_days: 0 },
        { expires_in_days: ['Ensure this value is greater than or equal to 1.'] },
      ],
      [{ name: 'x', scopes: ['users:read'], expires_in_days: 1.5 }, { expires_in_days: ['A valid integer is required.'] }],
      [{ name: 'x', scopes: ['users:read'], token: 'idp_mine' }, { token: ['Unknown field.'] }],
      [['users:read'], { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] }],
    ];
    for (const [json, fields] of cases) {
      const answer = await s.api('/api/v3/admin/tokens/', { json });
      expect({ json, status: answer.status, body: answer.body }).toEqual({ json, status: 400, body: fields });
    }
    const malformed = await s.api('/api/v3/admin/tokens/', { body: '{"name": ', headers: { 'Content-Type': 'application/json' } });
    expect(malformed).toMatchObject({ status: 400, body: { detail: expect.stringContaining('JSON parse error') } });
    expect(
      (await s.api('/api/v3/admin/tokens/', { body: 'name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status,
    ).toBe(415);
    expect((await s.db.store.apiTokens.list()).length).toBe(before);
  });

  test('keys: rotate → 201 with a new active key for every algorithm in use, stored and listed first, the previous ones retired; never private material', async () => {
    const previous = (await s.db.store.signingKeys.list()).filter((key) => key.state === 'active');
    expect(previous.map((key) => key.alg)).toEqual(['RS256', 'EdDSA']);

    const rotated = await s.api('/api/v3/admin/keys/rotate/', { method: 'POST' });
    expect(rotated.status).toBe(201);
    const newKey = (alg: string) => ({ kid: expect.any(String), alg, state: 'active', created_at: expect.any(String), retired_at: null });
    // The fields of the new RS256 key, as the answer was before keys had algorithms, and every new key.
    expect(rotated.body).toEqual({ ...newKey('RS256'), keys: [newKey('RS256'), newKey('EdDSA')] });
    expect(rotated.body.kid).toBe(rotated.body.keys[0].kid);
    const newKids = rotated.body.keys.map((key: { kid: string }) => key.kid);
    for (const key of previous) expect(newKids).not.toContain(key.kid);

    // Stored at once: the store's own list (what every process loads its keys from) has them active, first.
    const stored = await s.db.store.signingKeys.list();
    expect(stored.slice(0, 2).map((key) => [key.kid, key.state])).toEqual(newKids.map((kid: string) => [kid, 'active']));
    for (const key of previous) expect(stored.find((row) => row.kid === key.kid)!.state).toBe('retired');

    const listed = await s.api('/api/v3/admin/keys/');
    expect(listed.status).toBe(200);
    expect(listed.body.results.slice(0, 2)).toEqual(rotated.body.keys);
    expect(listed.body.results.map((key: { kid: string }) => key.kid)).toEqual(stored.map((key) => key.kid));
    expect(listed.body.results.find((key: { kid: string }) => key.kid === previous[0]!.kid)).toEqual({
      kid: previous[0]!.kid,
      alg: 'RS256',
      state: 'retired',
      created_at: previous[0]!.created_at.toISOString(),
      retired_at: expect.any(String),
    });
    const text = JSON.stringify(listed.body) + JSON.stringify(rotated.body);
    for (const secret of ['encrypted_jwk', '"d"', '"p"', '"q"', '"n"', '"x"', ...previous.map((key) => key.encrypted_jwk)]) {
      expect(text).not.toContain(secret);
    }
  });

  test('lists page like every other list: page_size, a page past the last → 404, a bad parameter → 400', async () => {
    await s.api('/api/v3/admin/tokens/', { json: { name: 'paging', scopes: ['groups:read'] } });
    const total = (await s.db.store.apiTokens.list()).length;
    const first = await s.api('/api/v3/admin/tokens/?page_size=1');
    expect(first.body.pagination).toMatchObject({ count: total, current: 1, total_pages: total, start_index: 1, end_index: 1 });
    expect(first.body.results).toHaveLength(1);
    const last = await s.api(`/api/v3/admin/tokens/?page_size=1&page=${total}`);
    expect(last.body.results[0].id).toBe((await s.db.store.apiTokens.list()).at(-1)!.id);
    expect(await s.api(`/api/v3/admin/tokens/?page=${total + 1}&page_size=1`)).toMatchObject({
      status: 404,
      body: { detail: 'Invalid page.' },
    });
    expect(await s.api('/api/v3/admin/keys/?page_size=ten')).toMatchObject({
      status: 400,
      body: { page_size: ['A valid integer is required.'] },
    });
    expect(await s.api('/api/v3/admin/keys/', { method: 'PUT', json: {} })).toMatchObject({
      status: 405,
      body: { detail: 'Method "PUT" not allowed.' },
    });
    expect(await s.api('/api/v3/admin/nothing/')).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
  });
});

test("admin requests count against the token's rate limit like any other", async () => {
  const s = await startTestServer('pglite', { rate_limits: { api_per_minute: 3 } });
  try {
    const token = await s.token(['admin']);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await s.api('/api/v3/admin/keys/', { token })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const throttled = await s.api('/api/v3/admin/tokens/', { token, json: { name: 'late', scopes: ['users:read'] } });
    expect(throttled).toMatchObject({ status: 429, body: { detail: expect.stringMatching(/^Request was throttled/) } });
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await s.db.store.apiTokens.list()).map((row) => row.name)).not.toContain('late');
  } finally {
    await s.close();
  }
});
