/**
 * PATCH (RFC 7644 §3.5.2) as Entra ID and Okta send it, and what it refuses: several operations land together or
 * not at all, read-only attributes, bad paths, values and filters answer 400 with their scimType and change
 * nothing, If-Match guards against lost updates.
 */
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CORE_GROUP, ENTERPRISE_USER, entraUser, patch, scimClient, type ScimCall } from '../helpers/scim.js';

describe.each(engines)('SCIM PATCH on %s', (engine) => {
  let s: TestServer;
  let scim: ScimCall;
  beforeAll(async () => {
    s = await startTestServer(engine);
    scim = await scimClient(s);
  });
  afterAll(async () => {
    await s.close();
  });

  let counter = 0;
  const newUser = async (extra: Record<string, unknown> = {}) => {
    counter += 1;
    const created = await scim('/Users', { json: entraUser(`p${counter}`, extra) });
    expect(created.status).toBe(201);
    return created.body as { id: string; userName: string; meta: { version: string } } & Record<string, any>;
  };
  const patchUser = (id: string, ...operations: Array<Record<string, unknown>>) =>
    scim(`/Users/${id}`, { method: 'PATCH', json: patch(...operations) });
  const get = async (id: string) => (await scim(`/Users/${id}`)).body;

  test('path-less values: dotted keys, extension objects and fully qualified names (Entra ID, Okta)', async () => {
    const user = await newUser();
    const answer = await patchUser(user.id, {
      op: 'Replace',
      value: {
        'name.givenName': 'Dotty',
        displayName: 'Dotty Dotson',
        [ENTERPRISE_USER]: { department: 'Ops' },
        [`${ENTERPRISE_USER}:employeeNumber`]: '777',
        'emails[type eq "work"].value': 'dotty@contoso.example',
      },
    });
    expect(answer.status).toBe(200);
    expect(await get(user.id)).toMatchObject({
      name: { givenName: 'Dotty', familyName: 'Family' },
      displayName: 'Dotty Dotson',
      emails: [{ value: 'dotty@contoso.example' }],
      [ENTERPRISE_USER]: { department: 'Ops', employeeNumber: '777', manager: { value: 'manager-id' } },
    });
  });

  test('booleans as strings ("False", "true") and op names in any case', async () => {
    const user = await newUser();
    expect((await patchUser(user.id, { op: 'REPLACE', path: 'active', value: 'False' })).body.active).toBe(false);
    expect((await patchUser(user.id, { op: 'replace', value: { active: 'true' } })).body.active).toBe(true);
    expect(await patchUser(user.id, { op: 'replace', path: 'active', value: 'maybe' })).toMatchObject({
      status: 400,
      body: { scimType: 'invalidValue' },
    });
  });

  test('a filtered replace that matches nothing creates the value its eq terms describe', async () => {
    const user = await newUser({ phoneNumbers: undefined });
    await patchUser(user.id, { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555 0199' });
    expect((await get(user.id)).phoneNumbers).toEqual([{ type: 'mobile', value: '+1 555 0199' }]);
    await patchUser(user.id, { op: 'Replace', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555 0200' });
    expect((await get(user.id)).phoneNumbers).toEqual([{ type: 'mobile', value: '+1 555 0200' }]);
    await patchUser(user.id, { op: 'Remove', path: 'phoneNumbers[type eq "mobile"]' });
    expect((await get(user.id)).phoneNumbers).toBeUndefined();
    const noTarget = await patchUser(user.id, { op: 'replace', path: 'phoneNumbers[value co "555"].type', value: 'work' });
    expect(noTarget).toMatchObject({ status: 400, body: { scimType: 'noTarget' } });
  });

  test('several operations land together; one bad operation leaves everything as it was', async () => {
    const user = await newUser();
    const before = await get(user.id);
    for (const [bad, scimType] of [
      [{ op: 'replace', path: 'userName', value: '' }, 'invalidValue'],
      [{ op: 'replace', path: 'shoeSize', value: '9' }, 'invalidPath'],
      [{ op: 'replace', path: 'id', value: 'mine' }, 'mutability'],
      [{ op: 'add', path: 'groups', value: [{ value: 'x' }] }, 'mutability'],
      [{ op: 'remove' }, 'noTarget'],
      [{ op: 'move', path: 'title' }, 'invalidSyntax'],
      [{ op: 'replace', path: 'emails[type eq "work"', value: 'x' }, 'invalidPath'],
      [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'not an address' }, 'invalidValue'],
    ] as const) {
      const answer = await patchUser(
        user.id,
        { op: 'replace', path: 'displayName', value: 'Changed' },
        { op: 'add', path: 'title', value: 'Boss' },
        bad,
      );
      expect(answer).toMatchObject({ status: 400, body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], scimType } });
      expect(await get(user.id)).toEqual(before);
    }
    const good = await patchUser(
      user.id,
      { op: 'replace', path: 'displayName', value: 'Changed' },
      { op: 'add', path: 'title', value: 'Boss' },
    );
    expect(good.body).toMatchObject({ displayName: 'Changed', title: 'Boss' });
  });

  test('a userName or e-mail another user holds → 409 uniqueness, nothing changed', async () => {
    const holder = await newUser();
    const user = await newUser();
    const before = await get(user.id);
    const clash = await patchUser(
      user.id,
      { op: 'replace', path: 'displayName', value: 'Clash' },
      { op: 'replace', path: 'userName', value: holder.userName.toUpperCase() },
    );
    expect(clash).toMatchObject({ status: 409, body: { status: '409', scimType: 'uniqueness' } });
    const mail = await patchUser(user.id, { op: 'replace', path: 'emails[type eq "work"].value', value: holder.emails[0].value });
    expect(mail).toMatchObject({ status: 409, body: { scimType: 'uniqueness' } });
    expect(await get(user.id)).toEqual(before);
  });

  test('bodies that are no PatchOp → 400 invalidSyntax', async () => {
    const user = await newUser();
    for (const body of [
      [],
      { Operations: [] },
      { schemas: ['urn:other'], Operations: [{ op: 'add', path: 'title', value: 'x' }] },
      { Operations: ['x'] },
    ]) {
      expect(await scim(`/Users/${user.id}`, { method: 'PATCH', json: body })).toMatchObject({
        status: 400,
        body: { scimType: 'invalidSyntax' },
      });
    }
    const notJson = await scim(`/Users/${user.id}`, {
      method: 'PATCH',
      body: '{"Operations": [',
      headers: { 'Content-Type': 'application/scim+json' },
    });
    expect(notJson).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
  });

  test('If-Match: the current version writes, an old one → 412 and nothing changes', async () => {
    const user = await newUser();
    const first = await scim(`/Users/${user.id}`, {
      method: 'PATCH',
      json: patch({ op: 'replace', path: 'title', value: 'One' }),
      headers: { 'If-Match': user.meta.version },
    });
    expect(first.status).toBe(200);
    const stale = await scim(`/Users/${user.id}`, {
      method: 'PATCH',
      json: patch({ op: 'replace', path: 'title', value: 'Two' }),
      headers: { 'If-Match': user.meta.version },
    });
    expect(stale).toMatchObject({ status: 412, body: { status: '412' } });
    expect((await get(user.id)).title).toBe('One');
    expect((await scim(`/Users/${user.id}`, { method: 'DELETE', headers: { 'If-Match': user.meta.version } })).status).toBe(412);
    expect((await scim(`/Users/${user.id}`, { method: 'DELETE', headers: { 'If-Match': first.body.meta.version } })).status).toBe(204);
  });

  test('groups: replace members wholesale, remove all members, members[...] filters with display', async () => {
    const [a, b] = [await newUser(), await newUser()];
    const group = (await scim('/Groups', { json: { schemas: [CORE_GROUP], displayName: 'Patchers', members: [{ value: a.id }] } })).body;
    const members = async () => ((await scim(`/Groups/${group.id}`)).body.members ?? []).map((m: { value: string }) => m.value);
    const replaced = await scim(`/Groups/${group.id}`, {
      method: 'PATCH',
      json: patch({ op: 'replace', path: 'members', value: [{ value: b.id }] }),
    });
    expect(replaced.status).toBe(204);
    expect(replaced.headers.get('etag')).toBe((await scim(`/Groups/${group.id}`)).body.meta.version);
    expect(await members()).toEqual([b.id]);
    // Asked for attributes, a group PATCH answers with the group.
    const answered = await scim(`/Groups/${group.id}?excludedAttributes=members`, {
      method: 'PATCH',
      json: patch({ op: 'replace', path: 'displayName', value: 'Patchers Renamed' }),
    });
    expect(answered).toMatchObject({ status: 200, body: { id: group.id, displayName: 'Patchers Renamed' } });
    expect(answered.body.members).toBeUndefined();
    await scim(`/Groups/${group.id}`, {
      method: 'PATCH',
      json: patch({ op: 'add', path: 'members', value: [{ value: a.id.toUpperCase() }] }),
    });
    expect((await members()).sort()).toEqual([a.id, b.id].sort());
    await scim(`/Groups/${group.id}`, { method: 'PATCH', json: patch({ op: 'remove', path: 'members' }) });
    expect(await members()).toEqual([]);
    const ghost = await scim(`/Groups/${group.id}`, {
      method: 'PATCH',
      json: patch(
        { op: 'add', path: 'members', value: [{ value: a.id }] },
        { op: 'add', path: 'members', value: [{ value: 'not-a-user' }] },
      ),
    });
    expect(ghost).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(await members()).toEqual([]);
  });
});
