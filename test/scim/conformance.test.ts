/**
 * SCIM conformance, as the Microsoft Entra ID SCIM validator and Okta's SCIM 2.0 test plan exercise a server —
 * users: create, get, filter by userName (found and not), PATCH replace/add/remove, deactivate, PUT, DELETE then
 * 404, duplicate userName 409; groups: create with members, add and remove members, rename,
 * excludedAttributes=members, filter by displayName — through real HTTP on each store engine.
 */
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  CORE_GROUP,
  CORE_USER,
  ENTERPRISE_USER,
  ERROR,
  LIST_RESPONSE,
  entraUser,
  oktaUser,
  patch,
  scimClient,
  type ScimCall,
} from '../helpers/scim.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(engines)('SCIM conformance on %s', (engine) => {
  let s: TestServer;
  let scim: ScimCall;
  beforeAll(async () => {
    s = await startTestServer(engine);
    scim = await scimClient(s);
  });
  afterAll(async () => {
    await s.close();
  });

  const createUser = async (body: Record<string, unknown>) => {
    const created = await scim('/Users', { json: body });
    expect(created.status).toBe(201);
    return created.body;
  };
  const byUserName = (userName: string) => scim(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);

  describe('users (Entra ID validator)', () => {
    test('create → 201 with id, meta, Location and ETag, as application/scim+json, holding what was sent', async () => {
      const created = await scim('/Users', { json: entraUser('ada') });
      expect(created.status).toBe(201);
      expect(created.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
      const user = created.body;
      expect(user.id).toMatch(UUID);
      expect(user).toMatchObject({
        schemas: [CORE_USER, ENTERPRISE_USER],
        externalId: 'ext-ada',
        userName: 'ada@contoso.example',
        active: true,
        displayName: 'Display ada',
        title: 'Engineer',
        preferredLanguage: 'en-US',
        name: { formatted: 'Givenada Family', familyName: 'Family', givenName: 'Givenada' },
        emails: [{ value: 'ada@contoso.example', type: 'work', primary: true }],
        phoneNumbers: [{ type: 'work', value: '+1 555 0100' }],
        addresses: [expect.objectContaining({ streetAddress: '1 Main St', primary: true })],
        [ENTERPRISE_USER]: { employeeNumber: '42', department: 'R&D', manager: { value: 'manager-id' } },
        meta: {
          resourceType: 'User',
          created: expect.stringMatching(/Z$/),
          lastModified: expect.stringMatching(/Z$/),
          location: `${s.settings.issuer.base_url}/scim/v2/Users/${user.id}`,
          version: expect.stringMatching(/^W\/".+"$/),
        },
      });
      expect(created.headers.get('location')).toBe(user.meta.location);
      expect(created.headers.get('etag')).toBe(user.meta.version);
      // The same person through the provisioning API: the SCIM id is its uuid, the given and family names its claims.
      const api = await s.api(`/api/v3/core/users/?email=ada@contoso.example`);
      expect(api.body.results[0]).toMatchObject({
        uuid: user.id,
        username: 'ada@contoso.example',
        name: 'Display ada',
        attributes: { first_name: 'Givenada', last_name: 'Family', department: 'R&D', employee_number: '42' },
      });
    });

    test('get by id → 200 with the same resource; an unknown or malformed id → 404 in SCIM form', async () => {
      const user = await createUser(entraUser('grace'));
      const got = await scim(`/Users/${user.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(user);
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const missing = await scim(`/Users/${id}`);
        expect(missing).toMatchObject({ status: 404, body: { schemas: [ERROR], status: '404' } });
        expect(missing.headers.get('content-type')).toContain('application/scim+json');
      }
    });

    test('filter by userName that exists → one; that does not → an empty list; by externalId', async () => {
      const user = await createUser(entraUser('linus'));
      const found = await byUserName('LINUS@contoso.example');
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ schemas: [LIST_RESPONSE], totalResults: 1, startIndex: 1, itemsPerPage: 1 });
      expect(found.body.Resources[0].id).toBe(user.id);
      const none = await byUserName('nobody@contoso.example');
      expect(none.body).toEqual({ schemas: [LIST_RESPONSE], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
      const external = await scim(`/Users?filter=${encodeURIComponent('externalId eq "ext-linus"')}`);
      expect(external.body.Resources.map((r: { id: string }) => r.id)).toEqual([user.id]);
      // externalId is case-exact (RFC 7643 §3.1).
      expect((await scim(`/Users?filter=${encodeURIComponent('externalId eq "EXT-LINUS"')}`)).body.totalResults).toBe(0);
    });

    test('duplicate userName (any case) → 409 uniqueness, nothing created', async () => {
      await createUser(entraUser('dup'));
      const again = await scim('/Users', {
        json: entraUser('dup', { userName: 'DUP@contoso.example', emails: [{ value: 'other@contoso.example' }] }),
      });
      expect(again).toMatchObject({ status: 409, body: { schemas: [ERROR], status: '409', scimType: 'uniqueness' } });
      expect(again.body.detail).toContain('username');
      expect((await scim(`/Users?filter=${encodeURIComponent('emails.value eq "other@contoso.example"')}`)).body.totalResults).toBe(0);
    });

    test('PATCH Replace (Entra): displayName, name.givenName, the work e-mail, the manager, active "False"', async () => {
      const user = await createUser(entraUser('patchy'));
      const patched = await scim(`/Users/${user.id}`, {
        method: 'PATCH',
        json: patch(
          { op: 'Replace', path: 'displayName', value: 'Renamed Patchy' },
          { op: 'Replace', path: 'name.givenName', value: 'Pat' },
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'patchy.new@contoso.example' },
          { op: 'Add', path: `${ENTERPRISE_USER}:manager`, value: 'boss-id' },
          { op: 'Replace', path: 'active', value: 'False' },
        ),
      });
      expect(patched.status).toBe(200);
      const got = (await scim(`/Users/${user.id}`)).body;
      expect(got).toMatchObject({
        displayName: 'Renamed Patchy',
        name: { givenName: 'Pat', familyName: 'Family' },
        emails: [{ value: 'patchy.new@contoso.example', type: 'work', primary: true }],
        active: false,
        [ENTERPRISE_USER]: { manager: { value: 'boss-id' } },
      });
      expect(patched.body).toEqual(got);
      expect(got.meta.version).not.toBe(user.meta.version);
    });

    test('PATCH add and remove (Okta): lower-case ops, path-less values, dotted keys', async () => {
      const user = await createUser(oktaUser('okta1'));
      expect(user.groups).toBeUndefined();
      await scim(`/Users/${user.id}`, { method: 'PATCH', json: patch({ op: 'add', path: 'title', value: 'Pilot' }) });
      expect((await scim(`/Users/${user.id}`)).body.title).toBe('Pilot');
      await scim(`/Users/${user.id}`, {
        method: 'PATCH',
        json: patch({ op: 'replace', value: { 'name.familyName': 'Renamed', nickName: 'Ace' } }),
      });
      expect((await scim(`/Users/${user.id}`)).body).toMatchObject({ name: { familyName: 'Renamed' }, nickName: 'Ace', title: 'Pilot' });
      await scim(`/Users/${user.id}`, { method: 'PATCH', json: patch({ op: 'remove', path: 'title' }) });
      const got = (await scim(`/Users/${user.id}`)).body;
      expect(got.title).toBeUndefined();
      expect(got.nickName).toBe('Ace');
    });

    test('deactivate (Okta: path-less replace active false), then reactivate', async () => {
      const user = await createUser(oktaUser('sleeper'));
      const off = await scim(`/Users/${user.id}`, { method: 'PATCH', json: patch({ op: 'replace', value: { active: false } }) });
      expect(off).toMatchObject({ status: 200, body: { active: false } });
      expect((await s.api(`/api/v3/core/users/?email=sleeper@okta.example`)).body.results[0].is_active).toBe(false);
      // Okta looks a deactivated user up and finds it.
      expect((await scim(`/Users?filter=${encodeURIComponent('userName eq "sleeper@okta.example"')}`)).body.Resources[0].active).toBe(
        false,
      );
      const on = await scim(`/Users/${user.id}`, { method: 'PATCH', json: patch({ op: 'replace', value: { active: true } }) });
      expect(on.body.active).toBe(true);
    });

    test('PUT replaces the user: new values in, omitted attributes out, the password ignored', async () => {
      const user = await createUser(entraUser('putty'));
      const replaced = await scim(`/Users/${user.id}`, {
        method: 'PUT',
        json: oktaUser('putty', { userName: 'putty@contoso.example', emails: [{ value: 'putty2@contoso.example', primary: true }] }),
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({
        id: user.id,
        userName: 'putty@contoso.example',
        displayName: 'Test putty',
        name: { givenName: 'Test', familyName: 'putty' },
        emails: [{ value: 'putty2@contoso.example' }],
        externalId: '00uputty',
        locale: 'en-US',
      });
      for (const gone of ['title', 'phoneNumbers', 'addresses', ENTERPRISE_USER, 'password']) expect(replaced.body[gone]).toBeUndefined();
      expect((await scim(`/Users/${user.id}`)).body).toEqual(replaced.body);
    });

    test('DELETE → 204; then GET, PATCH and DELETE answer 404 and the filter finds nothing', async () => {
      const user = await createUser(entraUser('goner'));
      expect((await scim(`/Users/${user.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await scim(`/Users/${user.id}`)).status).toBe(404);
      expect((await scim(`/Users/${user.id}`, { method: 'PATCH', json: patch({ op: 'replace', value: { active: true } }) })).status).toBe(
        404,
      );
      expect((await scim(`/Users/${user.id}`, { method: 'DELETE' })).status).toBe(404);
      expect((await byUserName('goner@contoso.example')).body.totalResults).toBe(0);
    });
  });

  describe('groups', () => {
    const createGroup = async (body: Record<string, unknown>) => {
      const created = await scim('/Groups', { json: { schemas: [CORE_GROUP], ...body } });
      expect(created.status).toBe(201);
      return created.body;
    };

    test('create with members → 201; members carry value, display and $ref; the users show the group', async () => {
      const a = await createUser(entraUser('member-a'));
      const b = await createUser(entraUser('member-b'));
      const group = await createGroup({ displayName: 'Engineering', externalId: 'grp-eng', members: [{ value: a.id }, { value: b.id }] });
      expect(group).toMatchObject({
        schemas: [CORE_GROUP],
        id: expect.stringMatching(UUID),
        displayName: 'Engineering',
        externalId: 'grp-eng',
        meta: { resourceType: 'Group', location: `${s.settings.issuer.base_url}/scim/v2/Groups/${group.id}` },
      });
      const base = `${s.settings.issuer.base_url}/scim/v2`;
      // Members in the order they became users.
      expect(group.members).toEqual(
        [a, b].map((u) => ({ value: u.id, display: u.displayName, $ref: `${base}/Users/${u.id}`, type: 'User' })),
      );
      expect((await scim(`/Users/${a.id}`)).body.groups).toEqual([
        { value: group.id, display: 'Engineering', $ref: `${base}/Groups/${group.id}`, type: 'direct' },
      ]);
    });

    test('add a member (Entra PATCH Add members), remove by filter (Okta) and by value list (Entra)', async () => {
      const [a, b, c] = [await createUser(entraUser('m1')), await createUser(entraUser('m2')), await createUser(entraUser('m3'))];
      const group = await createGroup({ displayName: 'Movers' });
      expect(group.members).toBeUndefined();
      const members = async () => ((await scim(`/Groups/${group.id}`)).body.members ?? []).map((m: { value: string }) => m.value).sort();

      const added = await scim(`/Groups/${group.id}`, {
        method: 'PATCH',
        json: patch({ op: 'Add', path: 'members', value: [{ value: a.id }, { value: b.id }, { value: c.id }] }),
      });
      expect(added.status).toBe(204);
      expect(added.body).toBeUndefined();
      expect(await members()).toEqual([a.id, b.id, c.id].sort());
      // Adding again changes nothing.
      await scim(`/Groups/${group.id}`, { method: 'PATCH', json: patch({ op: 'add', path: 'members', value: [{ value: a.id }] }) });
      expect(await members()).toEqual([a.id, b.id, c.id].sort());

      await scim(`/Groups/${group.id}`, { method: 'PATCH', json: patch({ op: 'remove', path: `members[value eq "${a.id}"]` }) });
      expect(await members()).toEqual([b.id, c.id].sort());
      await scim(`/Groups/${group.id}`, { method: 'PATCH', json: patch({ op: 'Remove', path: 'members', value: [{ value: b.id }] }) });
      expect(await members()).toEqual([c.id]);
      // Removing a non-member is not an error.
      expect(
        (await scim(`/Groups/${group.id}`, { method: 'PATCH', json: patch({ op: 'remove', path: `members[value eq "${a.id}"]` }) })).status,
      ).toBe(204);
    });

    test('rename: PATCH replace displayName (Entra), PUT displayName (Okta) keeps the members', async () => {
      const member = await createUser(entraUser('renamer'));
      const group = await createGroup({ displayName: 'Old Name', members: [{ value: member.id }] });
      await scim(`/Groups/${group.id}`, { method: 'PATCH', json: patch({ op: 'Replace', path: 'displayName', value: 'New Name' }) });
      expect((await scim(`/Groups/${group.id}`)).body.displayName).toBe('New Name');
      const put = await scim(`/Groups/${group.id}`, {
        method: 'PUT',
        json: { schemas: [CORE_GROUP], id: group.id, displayName: 'Newest Name' },
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ displayName: 'Newest Name', members: [{ value: member.id }] });
      // Okta's path-less replace carries the id it read: that is left alone.
      await scim(`/Groups/${group.id}`, {
        method: 'PATCH',
        json: patch({ op: 'replace', value: { id: group.id, displayName: 'Okta Name' } }),
      });
      expect((await scim(`/Groups/${group.id}`)).body.displayName).toBe('Okta Name');
      // A taken name → 409.
      await createGroup({ displayName: 'Taken Name' });
      const clash = await scim(`/Groups/${group.id}`, {
        method: 'PATCH',
        json: patch({ op: 'replace', path: 'displayName', value: 'TAKEN NAME' }),
      });
      expect(clash).toMatchObject({ status: 409, body: { scimType: 'uniqueness' } });
    });

    test('excludedAttributes=members and filter by displayName (found and not)', async () => {
      const member = await createUser(entraUser('listed'));
      const group = await createGroup({ displayName: 'Listed Group', members: [{ value: member.id }] });
      const filter = encodeURIComponent('displayName eq "listed group"');
      const found = await scim(`/Groups?filter=${filter}&excludedAttributes=members`);
      expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id: group.id, displayName: 'Listed Group' }] });
      expect(found.body.Resources[0].members).toBeUndefined();
      expect((await scim(`/Groups/${group.id}?excludedAttributes=members`)).body.members).toBeUndefined();
      expect((await scim(`/Groups?filter=${filter}`)).body.Resources[0].members).toHaveLength(1);
      const none = await scim(`/Groups?filter=${encodeURIComponent('displayName eq "No Such Group"')}`);
      expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
      // Entra's membership check: the group, filtered by id and a member.
      const check = (user: string) =>
        scim(`/Groups?excludedAttributes=members&filter=${encodeURIComponent(`id eq "${group.id}" and members[value eq "${user}"]`)}`);
      expect((await check(member.id)).body.totalResults).toBe(1);
      expect((await check('00000000-0000-4000-8000-000000000000')).body.totalResults).toBe(0);
    });

    test('DELETE a group → 204, then 404; its members stay', async () => {
      const member = await createUser(entraUser('survivor'));
      const group = await createGroup({ displayName: 'Doomed', members: [{ value: member.id }] });
      expect((await scim(`/Groups/${group.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await scim(`/Groups/${group.id}`)).status).toBe(404);
      const user = (await scim(`/Users/${member.id}`)).body;
      expect(user.groups).toBeUndefined();
    });

    test('a member that is no user → 400 invalidValue and no group', async () => {
      const bad = await scim('/Groups', {
        json: { schemas: [CORE_GROUP], displayName: 'Ghostly', members: [{ value: '00000000-0000-4000-8000-000000000000' }] },
      });
      expect(bad).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
      expect((await scim(`/Groups?filter=${encodeURIComponent('displayName eq "Ghostly"')}`)).body.totalResults).toBe(0);
    });
  });
});
