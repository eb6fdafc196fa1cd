/**
 * SCIM filters (RFC 7644 §3.4.2.2), paging and projections on /Users and /Groups, answered by the database: every
 * operator, and/or/not with parentheses, attribute names in any case, value paths, dates and booleans; startIndex,
 * count, totalResults, itemsPerPage; attributes and excludedAttributes; and what is refused (400 invalidFilter).
 */
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CORE_GROUP, ENTERPRISE_USER, entraUser, scimClient, type ScimCall } from '../helpers/scim.js';

describe.each(engines)('SCIM filters on %s', (engine) => {
  let s: TestServer;
  let scim: ScimCall;
  const ids: Record<string, string> = {};
  let group: string;

  beforeAll(async () => {
    s = await startTestServer(engine);
    scim = await scimClient(s);
    const people: Array<[string, Record<string, unknown>]> = [
      ['alice', { [ENTERPRISE_USER]: { department: 'Sales' } }],
      ['bob', { active: false, emails: [{ value: 'bob@beta.example', type: 'work' }] }],
      ['carol', { title: '' }],
      ['dave', { externalId: undefined, [ENTERPRISE_USER]: { department: 'R&D' } }],
      ['erin', { name: { givenName: 'Erin', familyName: 'Zed' } }],
    ];
    for (const [n, extra] of people) {
      const created = await scim('/Users', { json: entraUser(n, extra) });
      expect(created.status).toBe(201);
      ids[n] = created.body.id;
    }
    const made = await scim('/Groups', {
      json: { schemas: [CORE_GROUP], displayName: 'Filterers', members: [{ value: ids.alice }, { value: ids.bob }] },
    });
    group = made.body.id;
    await scim('/Groups', { json: { schemas: [CORE_GROUP], displayName: 'Others', externalId: 'grp-others' } });
  });
  afterAll(async () => {
    await s.close();
  });

  const users = async (filter: string, extra = '') => {
    const answer = await scim(`/Users?filter=${encodeURIComponent(filter)}${extra}`);
    expect(answer.status).toBe(200);
    return (answer.body.Resources as Array<{ userName: string }>).map((user) => user.userName.split('@')[0]).sort();
  };

  test.each([
    ['userName eq "alice@contoso.example"', ['alice']],
    ['userName ne "alice@contoso.example"', ['bob', 'carol', 'dave', 'erin']],
    ['userName co "AR"', ['carol']],
    ['userName sw "d"', ['dave']],
    ['emails.value ew "@beta.example"', ['bob']],
    ['displayName gt "Display c"', ['carol', 'dave', 'erin']],
    ['displayName ge "Display carol"', ['carol', 'dave', 'erin']],
    ['displayName lt "Display bob"', ['alice']],
    ['displayName le "Display bob"', ['alice', 'bob']],
    ['title pr', ['alice', 'bob', 'dave', 'erin']],
    ['externalId pr', ['alice', 'bob', 'carol', 'erin']],
    ['active eq false', ['bob']],
    ['active eq "True"', ['alice', 'carol', 'dave', 'erin']],
    ['name.familyName eq "zed"', ['erin']],
    [`${ENTERPRISE_USER}:department eq "Sales"`, ['alice']],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "bob@contoso.example"', ['bob']],
    ['USERNAME EQ "erin@contoso.example"', ['erin']],
    ['userName sw "a" or userName sw "b"', ['alice', 'bob']],
    ['userName sw "a" or userName sw "b" and active eq true', ['alice']],
    ['(userName sw "a" or userName sw "b") and active eq true', ['alice']],
    ['not (userName sw "a" or userName sw "b")', ['carol', 'dave', 'erin']],
    ['emails[type eq "work"]', ['alice', 'bob', 'carol', 'dave', 'erin']],
    ['emails[type eq "home"]', []],
    ['emails[type eq "work" and value co "beta"]', ['bob']],
    [`groups[value eq "00000000-0000-4000-8000-000000000000"]`, []],
    ['meta.created gt "2000-01-01T00:00:00Z"', ['alice', 'bob', 'carol', 'dave', 'erin']],
    ['meta.lastModified lt "2000-01-01T00:00:00Z"', []],
  ])('%s', async (filter, expected) => {
    expect(await users(filter)).toEqual(expected);
  });

  test('groups.value and groups.display: members of a group', async () => {
    expect(await users(`groups.value eq "${group}"`)).toEqual(['alice', 'bob']);
    expect(await users('groups.display eq "filterers"')).toEqual(['alice', 'bob']);
  });

  test('groups: displayName, externalId, members.value and members.display', async () => {
    const names = async (filter: string) =>
      ((await scim(`/Groups?filter=${encodeURIComponent(filter)}`)).body.Resources as Array<{ displayName: string }>).map(
        (g) => g.displayName,
      );
    expect(await names('displayName sw "filt"')).toEqual(['Filterers']);
    expect(await names('externalId eq "grp-others"')).toEqual(['Others']);
    expect(await names(`members[value eq "${ids.bob}"]`)).toEqual(['Filterers']);
    expect(await names('members.display co "alice"')).toEqual(['Filterers']);
    expect(await names('not (members pr)')).toEqual(['Others']);
  });

  test('paging: startIndex is 1-based; count, totalResults and itemsPerPage; past the end is an empty page', async () => {
    const page = async (query: string) => (await scim(`/Users?${query}`)).body;
    const all = (await page('count=100')).Resources.map((user: { id: string }) => user.id);
    expect(all).toHaveLength(5);
    expect(await page('startIndex=2&count=2')).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect((await page('startIndex=2&count=2')).Resources.map((user: { id: string }) => user.id)).toEqual(all.slice(1, 3));
    expect(await page('startIndex=0&count=1')).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
    expect(await page('count=0')).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    expect(await page('count=-3')).toMatchObject({ totalResults: 5, itemsPerPage: 0 });
    expect(await page('startIndex=6')).toMatchObject({ totalResults: 5, startIndex: 6, itemsPerPage: 0, Resources: [] });
    expect((await page(`count=1000`)).itemsPerPage).toBe(5);
    expect(await scim('/Users?count=many')).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
  });

  test('POST /Users/.search takes the same parameters in the body', async () => {
    const search = await scim('/Users/.search', {
      json: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
        filter: 'userName sw "c"',
        attributes: ['userName'],
        count: 5,
      },
    });
    expect(search.status).toBe(200);
    expect(search.body.Resources).toEqual([{ schemas: expect.any(Array), id: ids.carol, userName: 'carol@contoso.example' }]);
  });

  test('attributes and excludedAttributes', async () => {
    const only = (await scim(`/Users/${ids.alice}?attributes=userName,name.givenName,${ENTERPRISE_USER}:department`)).body;
    expect(only).toEqual({
      schemas: expect.any(Array),
      id: ids.alice,
      userName: 'alice@contoso.example',
      name: { givenName: 'Givenalice' },
      [ENTERPRISE_USER]: { department: 'Sales' },
    });
    const without = (await scim(`/Users/${ids.alice}?excludedAttributes=emails,NAME,meta,id`)).body;
    expect(without.emails).toBeUndefined();
    expect(without.name).toBeUndefined();
    expect(without.meta).toBeUndefined();
    expect(without.id).toBe(ids.alice); // always returned
    expect(without.userName).toBe('alice@contoso.example');
    const both = await scim(`/Users?attributes=userName&excludedAttributes=emails`);
    expect(both).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
  });

  test.each([
    ['userName eq', 'a value'],
    ['userName eq "unclosed', 'not closed'],
    ['userName xx "a"', 'operator'],
    ['(userName eq "a"', '")"'],
    ['userName eq "a" extra', 'continues'],
    ['shoeSize eq "9"', 'cannot be filtered'],
    ['phoneNumbers.value eq "1"', 'cannot be filtered'],
    ['active gt true', 'only eq and ne'],
    ['meta.created gt "yesterday"', 'dateTime'],
    ['userName eq 12', 'string'],
    ['urn:example:other:1.0:User:x eq "a"', 'schema'],
    ['', 'empty'],
  ])('refused: %j → 400 invalidFilter', async (filter, words) => {
    if (!filter) {
      // An empty filter is no filter.
      expect((await scim('/Users?filter=')).status).toBe(200);
      return;
    }
    const answer = await scim(`/Users?filter=${encodeURIComponent(filter)}`);
    expect(answer).toMatchObject({ status: 400, body: { status: '400', scimType: 'invalidFilter' } });
    expect(answer.body.detail).toContain(words);
  });
});
