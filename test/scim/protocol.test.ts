/**
 * The SCIM endpoint's protocol: API tokens with the `scim` scope (401 and 403 in SCIM's error form), the
 * discovery documents (ServiceProviderConfig, ResourceTypes, Schemas), application/scim+json in and out, and
 * SCIM answers for unknown paths, wrong methods and unreadable bodies.
 */
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CORE_GROUP, CORE_USER, ENTERPRISE_USER, ERROR, LIST_RESPONSE, entraUser, scimClient, type ScimCall } from '../helpers/scim.js';

describe.each(engines)('SCIM protocol on %s', (engine) => {
  let s: TestServer;
  let scim: ScimCall;
  beforeAll(async () => {
    s = await startTestServer(engine);
    scim = await scimClient(s);
  });
  afterAll(async () => {
    await s.close();
  });

  const expectScimError = (answer: { status: number; headers: Headers; body: any }, status: number, scimType?: string) => {
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
    expect(answer.body).toEqual({
      schemas: [ERROR],
      status: String(status),
      ...(scimType ? { scimType } : {}),
      detail: expect.any(String),
    });
  };

  test('no token, a malformed header or an unknown token → 401 in SCIM form, with the Bearer challenge', async () => {
    const none = await scim('/Users', { token: null });
    expectScimError(none, 401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    expectScimError(await scim('/Users', { token: null, headers: { Authorization: 'Basic abc' } }), 401);
    expectScimError(await scim('/Users', { token: 'idp_not-a-token' }), 401);
    // Discovery needs the token too: nothing about the directory is public.
    expectScimError(await scim('/ServiceProviderConfig', { token: null }), 401);
  });

  test('a token without the scim scope → 403; the scim scope opens neither the API nor its admin', async () => {
    const apiOnly = await s.token(['users:read', 'users:write', 'groups:read', 'groups:write']);
    const denied = await scim('/Users', { token: apiOnly });
    expectScimError(denied, 403);
    expect(denied.body.detail).toContain('scim');
    const scimOnly = await s.token(['scim']);
    expect((await s.api('/api/v3/core/users/', { token: scimOnly })).status).toBe(403);
    expect((await s.api('/api/v3/admin/tokens/', { token: scimOnly })).status).toBe(403);
  });

  test('tokens with the scim scope are made like the others (admin API)', async () => {
    const made = await s.api('/api/v3/admin/tokens/', { json: { name: 'entra-id', scopes: ['scim'] } });
    expect(made).toMatchObject({ status: 201, body: { scopes: ['scim'] } });
    expect((await scim('/Users', { token: made.body.token })).status).toBe(200);
  });

  test('ServiceProviderConfig: PATCH, filters and ETags supported; bulk, sorting and password changes not', async () => {
    const answer = await scim('/ServiceProviderConfig');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
    expect(answer.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 100 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: true },
      authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken', primary: true })],
    });
  });

  test('ResourceTypes and Schemas: User with the enterprise extension, Group; each by id', async () => {
    const types = (await scim('/ResourceTypes')).body;
    expect(types).toMatchObject({ schemas: [LIST_RESPONSE], totalResults: 2 });
    expect(types.Resources.map((t: { id: string; endpoint: string }) => [t.id, t.endpoint])).toEqual([
      ['User', '/Users'],
      ['Group', '/Groups'],
    ]);
    expect((await scim('/ResourceTypes/User')).body.schemaExtensions).toEqual([{ schema: ENTERPRISE_USER, required: false }]);
    const schemas = (await scim('/Schemas')).body;
    expect(schemas.Resources.map((schema: { id: string }) => schema.id)).toEqual([CORE_USER, ENTERPRISE_USER, CORE_GROUP]);
    const user = (await scim(`/Schemas/${CORE_USER}`)).body;
    const userName = user.attributes.find((a: { name: string }) => a.name === 'userName');
    expect(userName).toMatchObject({ type: 'string', required: true, uniqueness: 'server', mutability: 'readWrite' });
    expect(user.attributes.find((a: { name: string }) => a.name === 'groups').mutability).toBe('readOnly');
    expectScimError(await scim('/Schemas/urn:nope'), 404);
    expectScimError(await scim('/ResourceTypes/Printer'), 404);
  });

  test('bodies: application/scim+json and application/json are read; others 415; unreadable JSON 400 invalidSyntax', async () => {
    const plain = await scim('/Users', { json: entraUser('plainjson'), headers: { 'Content-Type': 'application/json' } });
    expect(plain.status).toBe(201);
    expectScimError(await scim('/Users', { body: 'userName=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }), 415);
    expectScimError(
      await scim('/Users', { body: '{"userName": ', headers: { 'Content-Type': 'application/scim+json' } }),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim('/Users', { json: ['not', 'a', 'resource'] }), 400, 'invalidSyntax');
    expectScimError(await scim('/Users', { json: { userName: 'nul\u0000byte@x.example' } }), 400, 'invalidValue');
  });

  test('unknown paths → 404, wrong methods → 405 with Allow, in SCIM form', async () => {
    expectScimError(await scim('/Printers'), 404);
    expectScimError(await s.api('/scim/v1/Users', { token: await s.token(['scim']) }), 404);
    const wrong = await scim('/ServiceProviderConfig', { method: 'DELETE' });
    expectScimError(wrong, 405);
    expect(wrong.headers.get('allow')).toContain('GET');
  });

  test('validation: a user needs a userName and an e-mail address → 400 invalidValue, nothing created', async () => {
    expectScimError(await scim('/Users', { json: { schemas: [CORE_USER], emails: [{ value: 'a@x.example' }] } }), 400, 'invalidValue');
    const noMail = await scim('/Users', { json: { schemas: [CORE_USER], userName: 'just-a-name' } });
    expectScimError(noMail, 400, 'invalidValue');
    expect(noMail.body.detail).toContain('e-mail');
    // A userName that is an address serves as the e-mail.
    const addressOnly = await scim('/Users', { json: { schemas: [CORE_USER], userName: 'only@x.example' } });
    expect(addressOnly).toMatchObject({ status: 201, body: { emails: [{ value: 'only@x.example' }], displayName: 'only@x.example' } });
    expectScimError(await scim('/Groups', { json: { schemas: [CORE_GROUP] } }), 400, 'invalidValue');
  });

  test('every SCIM write is audited as the token, like the API', async () => {
    const token = await s.token(['scim']);
    const client = await scimClient(s, token);
    const user = (await client('/Users', { json: entraUser('audited') })).body;
    const events = await s.db.database.db
      .selectFrom('audit_events')
      .select(['action', 'actor_type', 'user_uuid'])
      .where('user_uuid', '=', user.id)
      .execute();
    expect(events).toEqual([{ action: 'user.created', actor_type: 'api_token', user_uuid: user.id }]);
  });
});
