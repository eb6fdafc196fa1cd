/**
 * The audit trail: sign-ins (succeeded, failed, denied), passwords, second factors, revoked tokens and every
 * provisioning change with the API token that made it and the fields changed — never a secret value; written
 * with the change or not at all; listed with filters (scope audit:read) and pruned after the retention period.
 */
import { sql } from 'kysely';
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, pkceRequest, redeemCode, submit } from '../helpers/http-client.js';
import { createApiToken } from '../../src/domain/api-tokens.js';
import { sweepOnce } from '../../jobs/sweep-expired.js';
import { signIns } from '../../src/observability/metrics.js';

const CALLBACK = 'http://127.0.0.1:1/callback';

describe.each(engines)('audit trail (%s)', (engine) => {
  let idp: OidcTestServer;
  let token: string;
  let tokenId: string;

  beforeAll(async () => {
    idp = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki' }, { slug: 'vault', access_group: 'vault-users' }]);
    const created = await createApiToken(idp.store, {
      name: 'provisioner',
      scopes: ['users:read', 'users:write', 'groups:read', 'groups:write', 'audit:read'],
    });
    [token, tokenId] = [created.token, created.row.id];
  });
  afterAll(async () => idp?.close());

  async function api(method: string, path: string, body?: unknown, bearer = token) {
    const response = await fetch(`${idp.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${bearer}`,
        'User-Agent': 'audit-test/1.0',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }
  const trail = async (query: string) => (await api('GET', `/api/v3/events/audit/?page_size=100&${query}`)).body;

  test('provisioning changes name the API token, the address and the fields, not their values', async () => {
    const created = await api('POST', '/api/v3/core/users/', {
      username: 'audited',
      email: 'audited@example.com',
      name: 'Audited One',
      attributes: { team: 'x' },
    });
    expect(created.status).toBe(201);
    const uuid = created.body.uuid as string;
    expect((await api('PATCH', `/api/v3/core/users/${created.body.pk}/`, { name: 'Audited Two', is_active: false })).status).toBe(200);
    expect((await api('PATCH', `/api/v3/core/users/${created.body.pk}/`, { name: 'Audited Two' })).status).toBe(200); // no change: no event
    expect((await api('POST', `/api/v3/core/users/${created.body.pk}/set_password/`, { password: 'a secret passphrase' })).status).toBe(
      204,
    );
    const group = (await api('POST', '/api/v3/core/groups/', { name: 'audited-group' })).body;
    expect((await api('POST', `/api/v3/core/groups/${group.pk}/add_user/`, { pk: created.body.pk })).status).toBe(204);
    expect((await api('DELETE', `/api/v3/core/users/${created.body.pk}/`)).status).toBe(204);

    const { results, pagination } = await trail(`user=${uuid}`);
    expect(results.map((event: { action: string }) => event.action)).toEqual([
      'user.deleted',
      'group.member_added',
      'password.set',
      'user.updated',
      'user.created',
    ]);
    expect(pagination.count).toBe(5);
    for (const event of results) {
      expect(event).toMatchObject({
        actor: { type: 'api_token', id: tokenId },
        user: uuid,
        ip: expect.stringMatching(/127\.0\.0\.1/),
        user_agent: 'audit-test/1.0',
      });
    }
    expect(results.find((event: { action: string }) => event.action === 'user.updated').details).toEqual({
      changed: ['is_active', 'name'],
    });
    expect(results.find((event: { action: string }) => event.action === 'user.created').details).toEqual({
      fields: ['attributes', 'email', 'groups', 'name', 'username'],
    });
    expect(JSON.stringify(results)).not.toContain('a secret passphrase');
    expect(JSON.stringify(results)).not.toContain('Audited Two');
  });

  test('a refused change records nothing', async () => {
    const before = (await trail('action=user.created')).pagination.count;
    await api('POST', '/api/v3/core/users/', { username: 'dup', email: 'dup@example.com', name: 'Dup' });
    expect((await api('POST', '/api/v3/core/users/', { username: 'dup2', email: 'DUP@example.com', name: 'Dup' })).status).toBe(400);
    expect((await trail('action=user.created')).pagination.count).toBe(before + 1);
  });

  test('sign-ins: succeeded (method, application, address), failed (the step and the identifier typed), denied', async () => {
    const user = await idp.user();
    const flow = await httpSignIn(new CookieClient(), idp.apps.wiki!, idp.url, user.email, PASSWORD);
    expect((await redeemCode(idp.apps.wiki!, idp.url, flow)).status).toBe(200);
    const succeeded = (await trail(`user=${user.uuid}&action=sign_in.succeeded`)).results;
    expect(succeeded).toEqual([
      expect.objectContaining({
        app: 'wiki',
        actor: { type: 'user', id: user.uuid },
        details: { method: ['pwd'] },
        ip: expect.stringMatching(/127\.0\.0\.1/),
      }),
    ]);

    const http = new CookieClient();
    const emailPage = await http.follow(await http.request((await pkceRequest(idp.apps.wiki!, idp.url)).url.href), CALLBACK);
    if (emailPage instanceof URL) throw new Error('expected the sign-in page');
    await submit(http, await submit(http, emailPage, { email: 'nobody-here@example.com' }), { password: 'typed password' });
    const failed = (await trail('app=wiki&action=sign_in.failed')).results;
    expect(failed[0]).toMatchObject({
      actor: { type: 'anonymous', id: null },
      user: null,
      details: { step: 'pwd', email: 'nobody-here@example.com' },
    });
    expect(JSON.stringify(failed)).not.toContain('typed password');

    const denied = await httpSignIn(new CookieClient(), idp.apps.vault!, idp.url, user.email, PASSWORD);
    expect(denied.callback.searchParams.get('error')).toBe('access_denied');
    expect((await trail(`user=${user.uuid}&app=vault`)).results.map((event: { action: string }) => event.action)).toEqual([
      'sign_in.denied',
    ]);
  });

  test('a wrong password for a known address names the user it was tried on', async () => {
    const user = await idp.user();
    const http = new CookieClient();
    const emailPage = await http.follow(await http.request((await pkceRequest(idp.apps.wiki!, idp.url)).url.href), CALLBACK);
    if (emailPage instanceof URL) throw new Error('expected the sign-in page');
    await submit(http, await submit(http, emailPage, { email: user.email }), { password: 'not the password' });
    expect((await trail(`user=${user.uuid}&action=sign_in.failed`)).results).toEqual([
      expect.objectContaining({ user: user.uuid, app: 'wiki', details: { step: 'pwd', email: user.email } }),
    ]);
  });

  test('a user outside the access group turned away on their single sign-on session: sign_in.denied, and counted', async () => {
    const deniedOnSession = async () =>
      (await signIns.get()).values.find((value) => value.labels.outcome === 'denied' && value.labels.method === 'session')?.value ?? 0;
    const user = await idp.user();
    const http = new CookieClient();
    await httpSignIn(http, idp.apps.wiki!, idp.url, user.email, PASSWORD); // the session
    const counted = await deniedOnSession();

    const landed = await http.follow(await http.request((await pkceRequest(idp.apps.vault!, idp.url)).url.href), CALLBACK);
    if (!(landed instanceof URL)) throw new Error(`expected the callback, got ${landed.status}`);
    expect(landed.searchParams.get('error')).toBe('access_denied'); // no page: the session decided
    expect((await trail(`user=${user.uuid}&app=vault`)).results).toEqual([
      expect.objectContaining({
        action: 'sign_in.denied',
        actor: { type: 'user', id: user.uuid },
        details: { method: ['session'], reason: 'access_group' },
        ip: expect.stringMatching(/127\.0\.0\.1/),
      }),
    ]);
    expect(await deniedOnSession()).toBe(counted + 1);
  });

  test('an application revoking a token, and a logout, are on the trail', async () => {
    const user = await idp.user();
    const flow = await httpSignIn(new CookieClient(), idp.apps.wiki!, idp.url, user.email, PASSWORD);
    const tokens = (await redeemCode(idp.apps.wiki!, idp.url, flow)).body;
    const revoked = await fetch(`${idp.url}/application/o/revoke/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens.refresh_token,
        token_type_hint: 'refresh_token',
        client_id: 'client-wiki',
        client_secret: idp.apps.wiki!.client_secret,
      }),
    });
    expect(revoked.status).toBe(200);
    const events = (await trail('app=wiki&action=token.revoked')).results;
    expect(events[0]).toMatchObject({ actor: { type: 'client', id: 'client-wiki' }, details: { hint: 'refresh_token' } });
    expect(JSON.stringify(events)).not.toContain(tokens.refresh_token);
  });

  test('filters by time; audit:read is needed; bad filters are field errors', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await trail(`since=${encodeURIComponent(future)}`)).results).toEqual([]);
    expect((await trail(`until=${encodeURIComponent(future)}`)).pagination.count).toBeGreaterThan(0);
    const reader = (await createApiToken(idp.store, { name: 'reader', scopes: ['users:read'] })).token;
    expect((await api('GET', '/api/v3/events/audit/', undefined, reader)).status).toBe(403);
    const bad = await api('GET', '/api/v3/events/audit/?user=nope&since=yesterday');
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body).sort()).toEqual(['since', 'user']);
  });

  test('events past audit.retention_days are swept; newer ones stay', async () => {
    const user = await idp.user();
    await idp.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { name: 'Old News' } });
    await sql`update audit_events set at = now() - interval '40 days' where user_uuid = ${user.uuid}`.execute(idp.db.database.db);
    const other = await idp.user();
    await idp.api(`/api/v3/core/users/${other.pk}/`, { method: 'PATCH', json: { name: 'Fresh News' } });
    const swept = await sweepOnce(idp.store, 30);
    expect(swept.auditEvents).toBeGreaterThanOrEqual(1);
    expect((await trail(`user=${user.uuid}`)).results).toEqual([]);
    expect((await trail(`user=${other.uuid}`)).results.length).toBeGreaterThan(0);
  });
});
