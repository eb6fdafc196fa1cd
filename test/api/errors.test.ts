/** The API's error contract: authentication, scopes, media types, body limits, unknown routes. */
import { startTestServer, type TestServer } from '../helpers/server.js';
import { revokeApiToken } from '../../src/domain/api-tokens.js';

describe('API errors', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('pglite');
  });
  afterAll(async () => {
    await s.close();
  });

  test('401 for a missing, malformed, unknown, revoked or expired token, with a Bearer challenge', async () => {
    const missing = await s.api('/api/v3/core/users/', { token: null });
    expect(missing).toMatchObject({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await s.api('/api/v3/core/users/', { token: null, headers: { Authorization: 'Basic dXNlcjpwYXNz' } })).toMatchObject({
      status: 401,
      body: { detail: expect.stringContaining('Invalid token header') },
    });
    expect(await s.api('/api/v3/core/users/', { token: 'idp_not-a-real-token' })).toMatchObject({
      status: 401,
      body: { detail: 'Invalid token.' },
    });

    const token = await s.token(['users:read']);
    expect((await s.api('/api/v3/core/users/', { token })).status).toBe(200);
    const [row] = (await s.db.store.apiTokens.list()).filter((t) => t.revoked_at === null).slice(-1);
    await revokeApiToken(s.db.store, row!.id);
    expect(await s.api('/api/v3/core/users/', { token })).toMatchObject({ status: 401, body: { detail: 'Invalid token.' } });
  });

  test('403 when the token lacks the scope; nothing is written', async () => {
    const reader = await s.token(['users:read', 'groups:read']);
    const denied = await s.api('/api/v3/core/users/', {
      token: reader,
      json: { username: 'no@example.com', email: 'no@example.com', name: 'No' },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain('users:write');
    expect((await s.api('/api/v3/core/users/?email=no@example.com')).body.pagination.count).toBe(0);
    expect((await s.api('/api/v3/core/groups/', { token: await s.token(['users:read']) })).status).toBe(403);
  });

  test('non-JSON body → 415; malformed JSON → 400 detail; body over 1 MB → 413', async () => {
    const text = await s.api('/api/v3/core/users/', {
      body: 'username=a',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(text).toMatchObject({ status: 415, body: { detail: expect.stringContaining('Unsupported media type') } });
    const malformed = await s.api('/api/v3/core/users/', { body: '{"username": ', headers: { 'Content-Type': 'application/json' } });
    expect(malformed).toMatchObject({ status: 400, body: { detail: expect.stringContaining('JSON parse error') } });
    const huge = await s.api('/api/v3/core/users/', {
      json: { username: 'big@example.com', email: 'big@example.com', name: 'x'.repeat(1_100_000) },
    });
    expect(huge).toMatchObject({ status: 413, body: { detail: expect.stringContaining('larger than') } });
    expect((await s.api('/api/v3/core/users/?email=big@example.com')).body.pagination.count).toBe(0);
  });

  test('unknown paths → 404 JSON; wrong method → 405 JSON; responses are not cacheable', async () => {
    expect(await s.api('/api/v3/core/nothing/')).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    const put = await s.api('/api/v3/core/users/', { method: 'PUT', json: {} });
    expect(put).toMatchObject({ status: 405, body: { detail: 'Method "PUT" not allowed.' } });
    expect(put.headers.get('allow')).toContain('POST');
    expect((await s.api('/api/v3/core/users/')).headers.get('cache-control')).toBe('no-store');
  });
});

describe('health', () => {
  test('live answers 200; ready answers 200 with the database and 503 without it', async () => {
    const s = await startTestServer('pglite');
    try {
      expect((await fetch(`${s.url}/-/health/live/`)).status).toBe(200);
      const ready = await fetch(`${s.url}/-/health/ready/`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok' } });
      await s.db.database.close();
      const down = await fetch(`${s.url}/-/health/ready/`);
      expect(down.status).toBe(503);
      expect((await down.json()).checks.database).toBe('unavailable');
      expect((await fetch(`${s.url}/-/health/live/`)).status).toBe(200);
    } finally {
      await s.close().catch(() => {});
    }
  });
});
