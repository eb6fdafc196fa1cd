/** Property-based tests of the provisioning API: random bodies, paths and queries never get a 5xx, errors keep the documented shapes and write nothing, valid random users and groups read back as sent. */
import fc from 'fast-check';
import { sql } from 'kysely';
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  PROTOTYPE_KEYS,
  anyFieldValue,
  anyJsonValue,
  anyText,
  apiErrorProblem,
  deepJson,
  groupProblem,
  listProblem,
  objectText,
  pct,
  userProblem,
  uuidLike,
  wirePairs,
  wireValue,
} from '../helpers/properties.js';

const NUM_RUNS = 120;
/** The write property spreads its runs over five endpoints: a few more of them. */
const WRITE_RUNS = 150;
const CORE = '/api/v3/core';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** Text the API accepts for username/name: storable, not blank, at most `max` characters (code points). */
const validText = (max: number) =>
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(max, 40) })
    .filter((text) => /\S/u.test(text) && !text.includes('\u0000') && text.isWellFormed() && [...text].length <= max);

/** Attributes the API stores: JSON objects without `__proto__` keys (refused by the JSON parser) or NUL. */
const validAttributes = fc
  .dictionary(
    fc.string({ unit: 'grapheme', maxLength: 10 }).filter((key) => key !== '__proto__' && !key.includes('\u0000')),
    fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 3 }),
    { maxKeys: 5, noNullPrototype: true },
  )
  .filter((value) => !JSON.stringify(value).includes('\\u0000') && !JSON.stringify(value).includes('__proto__'));

/** Letters whose case JavaScript and PostgreSQL map differently, mixed with plain ones. */
const caseTricky = fc
  .string({
    unit: fc.constantFrom(
      'a',
      'b',
      'A',
      'B',
      'i',
      'I',
      'İ',
      'ı',
      'Σ',
      'σ',
      'ς',
      'ß',
      'ẞ',
      'K',
      'k',
      'ǅ',
      'ﬁ',
      'É',
      'é',
      'Ω',
      'Ω',
      ' ',
      '-',
      '😀',
    ),
    minLength: 1,
    maxLength: 12,
  })
  .filter((text) => /\S/u.test(text));

const swapAsciiCase = (text: string) => text.replace(/[a-z]/gi, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
/** The JSON form of a value, as it can come back (-0 is 0, and so on). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));

describe.each(engines)('provisioning API properties (%s)', (engine) => {
  let s: TestServer;
  let token: string;
  let groups: string[] = [];
  let targetUser: number;
  let targetGroup: string;
  let counter = 0;

  beforeAll(async () => {
    s = await startTestServer(engine);
    token = await s.token();
    for (const name of ['alpha', 'beta', 'gamma', 'target'])
      groups.push((await call('POST', `${CORE}/groups/`, JSON.stringify({ name }))).body.pk);
    const user = await call(
      'POST',
      `${CORE}/users/`,
      JSON.stringify({ username: 'target@example.com', email: 'target@example.com', name: 'Target', groups: [groups[0]] }),
    );
    targetUser = user.body.pk;
    targetGroup = groups[3]!;
    expect((await call('POST', `${CORE}/groups/${targetGroup}/add_user/`, JSON.stringify({ pk: targetUser }))).status).toBe(204);
  });
  afterAll(async () => s?.close());

  async function call(method: string, path: string, body?: string, contentType = 'application/json'): Promise<Answer> {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (body !== undefined) headers['Content-Type'] = contentType;
    const response = await fetch(s.url + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* kept as text: the shape checks report it */
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  /** Everything a failed request must leave alone: row counts, the outbox, the target rows, and what the API shows of them. */
  async function snapshot() {
    const db = s.db.database.db;
    const {
      rows: [counts],
    } = await sql<Record<string, number>>`select
      (select count(*)::int from users) as users, (select count(*)::int from groups) as groups,
      (select count(*)::int from memberships) as memberships, (select count(*)::int from outbox) as outbox`.execute(db);
    return {
      counts,
      user: await db.selectFrom('users').selectAll().where('id', '=', targetUser).executeTakeFirst(),
      group: await db.selectFrom('groups').selectAll().where('uuid', '=', targetGroup).executeTakeFirst(),
      listed: (await call('GET', `${CORE}/users/?page_size=1`)).body.pagination.count,
      shown: (await call('GET', `${CORE}/users/${targetUser}/`)).body,
      members: (await call('GET', `${CORE}/groups/${targetGroup}/`)).body.users,
    };
  }

  /** Every answer: never a 5xx; JSON with no-store (204: empty); a 4xx in one of the two documented shapes. */
  function expectDocumentedAnswer(answer: Answer) {
    expect(answer.status).toBeLessThan(500);
    if (answer.status === 204) {
      expect(answer.text).toBe('');
      return;
    }
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('cache-control')).toContain('no-store');
    if (answer.status >= 400) expect(apiErrorProblem(answer.body)).toBeUndefined();
  }

  const nextId = () => ++counter;

  test('random bodies, paths and content types on every write endpoint: no 5xx, documented shapes, a 4xx writes nothing', async () => {
    const known = () => groups;
    const userFields = ['username', 'email', 'name', 'is_active', 'groups', 'attributes', 'pk', 'uuid', 'last_login'];
    const groupFields = ['name', 'attributes', 'pk', 'users', 'users_count'];
    const memberFields = ['pk'];
    const valueFor = (key: string): fc.Arbitrary<unknown> => {
      const field = {
        username: fc.oneof(fc.emailAddress(), validText(150)),
        email: fc.emailAddress(),
        name: validText(255),
        is_active: fc.boolean(),
        groups: fc.array(uuidLike(known()), { maxLength: 3 }),
        attributes: validAttributes,
        pk: fc.oneof(fc.constant(targetUser), fc.integer(), fc.double()),
        users: fc.array(fc.integer(), { maxLength: 3 }),
      }[key];
      return field ? fc.oneof(field, anyFieldValue(known())) : anyFieldValue(known());
    };
    const entries = (fields: string[]) =>
      fc.array(
        fc.oneof(
          {
            weight: 4,
            arbitrary: fc.constantFrom(...fields).chain((key) => valueFor(key).map((value) => [key, value] as [string, unknown])),
          },
          {
            weight: 1,
            arbitrary: fc.tuple(
              fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ unit: 'binary', maxLength: 10 })),
              anyFieldValue(known()),
            ),
          },
        ),
        { maxLength: 6 },
      );
    // A valid body with a few fields overwritten (a repeated key: the last one counts) or added: reaches past validation.
    const validBase: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
      username: fc.record({
        username: fc.emailAddress(),
        email: fc.emailAddress(),
        name: validText(60),
        groups: fc.oneof(fc.subarray(known()), fc.array(uuidLike(known()), { minLength: 1, maxLength: 2 })),
      }),
      name: fc.record({ name: validText(60), attributes: validAttributes }),
      pk: fc.record({ pk: fc.constant(targetUser) }),
    };
    const mutated = (fields: string[]) =>
      fc
        .tuple(
          validBase[fields[0]!]!,
          fc.array(
            fc.oneof(
              fc.constantFrom(...fields).chain((key) => valueFor(key).map((value) => [key, value] as [string, unknown])),
              fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS, 'extra'), anyFieldValue(known())),
            ),
            { maxLength: 2 },
          ),
        )
        .map(([base, changes]) => objectText([...Object.entries(base), ...changes]));
    const bodyFor = (fields: string[]) =>
      fc.oneof(
        { weight: 4, arbitrary: entries(fields).map(objectText) },
        { weight: 8, arbitrary: mutated(fields) },
        { weight: 1, arbitrary: anyJsonValue(3).map((value) => JSON.stringify(value)) },
        { weight: 1, arbitrary: anyText(60) },
        { weight: 1, arbitrary: deepJson.map((deep) => `{"name":"deep","attributes":${deep}}`) },
        { weight: 1, arbitrary: deepJson },
        { weight: 1, arbitrary: fc.integer({ min: 1_000_000, max: 1_100_000 }).map((n) => objectText([['name', 'x'.repeat(n)]])) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      );
    const contentType = fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/json') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          'application/json; charset=utf-8',
          'application/merge-patch+json',
          'application/json; charset=latin1',
          'application/json; charset=utf-16le',
          'application/json; charset=bogus',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          '',
          'application/jsonx',
          'APPLICATION/JSON',
        ),
      },
    );
    const pathSegment = (real: () => string) =>
      fc.oneof(
        { weight: 8, arbitrary: fc.constant(null).map(() => real()) },
        {
          weight: 1,
          arbitrary: fc
            .oneof(anyText(20, 0), fc.constantFrom('0', '-1', '01', '1.0', '1e3', ' 1', '2147483648', '99999999999'), uuidLike(known()))
            .map(pct),
        },
      );
    const request = fc.oneof(
      fc.record({
        method: fc.constant('POST'),
        path: fc.constant(`${CORE}/users/`),
        kind: fc.constant('user' as const),
        body: bodyFor(userFields),
      }),
      fc.record({
        method: fc.constant('PATCH'),
        path: pathSegment(() => String(targetUser)).map((pk) => `${CORE}/users/${pk}/`),
        kind: fc.constant('user' as const),
        body: bodyFor(userFields),
      }),
      fc.record({
        method: fc.constant('POST'),
        path: fc.constant(`${CORE}/groups/`),
        kind: fc.constant('group' as const),
        body: bodyFor(groupFields),
      }),
      fc.record({
        method: fc.constant('PATCH'),
        path: pathSegment(() => targetGroup).map((pk) => `${CORE}/groups/${pk}/`),
        kind: fc.constant('group' as const),
        body: bodyFor(groupFields),
      }),
      fc.record({
        method: fc.constant('POST'),
        kind: fc.constant('member' as const),
        body: bodyFor(memberFields),
        path: fc
          .tuple(
            pathSegment(() => targetGroup),
            fc.constantFrom('add_user', 'remove_user'),
          )
          .map(([pk, action]) => `${CORE}/groups/${pk}/${action}/`),
      }),
    );

    await fc.assert(
      fc.asyncProperty(request, contentType, async ({ method, path, kind, body }, type) => {
        const before = await snapshot();
        const answer = await call(method, path, body, type);
        expectDocumentedAnswer(answer);
        if (answer.status >= 400) {
          expect(await snapshot()).toEqual(before);
          return;
        }
        if (kind === 'member') expect(answer.status).toBe(204);
        else expect((kind === 'user' ? userProblem : groupProblem)(answer.body)).toBeUndefined();
        if (method === 'PATCH') expect((await call('GET', path)).body).toEqual(answer.body);
      }),
      { numRuns: WRITE_RUNS },
    );
  });

  test('random query strings on the lists: no 5xx, a 200 is a consistent page, a 4xx is documented, nothing is written', async () => {
    const number = (max: number) =>
      fc.oneof(
        fc.integer({ min: 1, max }).map(String),
        fc.constantFrom('0', '-1', '1e3', ' 1', '01', '', '1.0', '+1', '2147483647', '2147483648', '99999999999'),
        anyText(10, 0),
      );
    const values: Record<string, fc.Arbitrary<string>> = {
      page: number(3),
      page_size: number(200),
      search: fc.oneof(
        anyText(30, 0),
        fc.integer({ min: 100, max: 3_000 }).map((n) => 'é'.repeat(n)),
      ),
      email: fc.oneof(fc.constantFrom('target@example.com', 'TARGET@example.com'), fc.emailAddress(), anyText(30, 0)),
      groups: uuidLike(groups),
      is_active: fc.oneof(fc.constantFrom('true', 'false', 'True', '1', '0', ''), anyText(10, 0)),
    };
    // Mostly the documented parameters with values meant for them (so one odd value meets otherwise valid ones),
    // sometimes anything; the wire form may carry raw %00, invalid UTF-8 and stray separators.
    const pair = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.constantFrom(...Object.keys(values)).chain((key) => wireValue(values[key]!).map((value) => `${key}=${value}`)),
      },
      {
        weight: 1,
        arbitrary: wirePairs(
          fc.oneof(
            fc.constantFrom('ordering', 'limit', 'offset', 'page[]', 'groups[]', 'groups[0]', 'is_active[x]', ...PROTOTYPE_KEYS),
            anyText(8, 0),
          ),
          anyText(30, 0),
          1,
        ),
      },
    );
    const queries = fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.filter(Boolean).join('&'));
    const rawPairs = (query: string) =>
      query
        .split('&')
        .map((pair) => pair.split('='))
        .map(([k, ...v]) => [k!, v.join('=')] as const);

    await fc.assert(
      fc.asyncProperty(fc.constantFrom('users', 'groups'), queries, async (list, query) => {
        const before = await snapshot();
        const path = `${CORE}/${list}/?${query}`;
        const answer = await call('GET', path);
        // Node's HTTP parser refuses a request head over 16 KiB before the service sees it: no body at all.
        if (answer.status === 431 && path.length > 15_000) return;
        expectDocumentedAnswer(answer);
        if (answer.status === 404) expect(answer.body).toEqual({ detail: 'Invalid page.' });
        if (answer.status === 200) {
          expect(listProblem(answer.body, s.settings.issuer.base_url, list === 'users' ? userProblem : groupProblem)).toBeUndefined();
          expect(answer.body.results.length).toBeLessThanOrEqual(100);
          const once = (key: string) => {
            const found = rawPairs(query).filter(([k]) => k === key);
            return found.length === 1 ? found[0]![1] : undefined;
          };
          if (list === 'users' && ['true', 'false'].includes(once('is_active') ?? '')) {
            for (const user of answer.body.results) expect(user.is_active).toBe(once('is_active') === 'true');
          }
          if (list === 'users' && groups.includes(once('groups') ?? '') && rawPairs(query).filter(([k]) => k === 'groups').length === 1) {
            for (const user of answer.body.results) expect(user.groups).toContain(once('groups'));
          }
        }
        expect(await snapshot()).toEqual(before);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('valid random users are created, read back and patched exactly as sent, and found by their e-mail in any case', async () => {
    const user = fc.record({
      username: validText(120),
      email: fc.emailAddress().filter((email) => email.length < 240),
      name: validText(255),
      is_active: fc.option(fc.boolean(), { nil: undefined }),
      email_verified: fc.option(fc.boolean(), { nil: undefined }),
      attributes: fc.option(validAttributes, { nil: undefined }),
      groups: fc.subarray([0, 1, 2]),
    });
    const change = fc.record(
      {
        username: validText(120),
        email: fc.emailAddress().filter((email) => email.length < 240),
        name: validText(255),
        is_active: fc.boolean(),
        email_verified: fc.boolean(),
        attributes: validAttributes,
      },
      { requiredKeys: [] },
    );

    await fc.assert(
      fc.asyncProperty(user, change, async (input, patch) => {
        const n = nextId();
        const sent = {
          ...input,
          username: `u${n}-${input.username}`,
          email: `u${n}.${input.email}`,
          groups: input.groups.map((i) => groups[i]!),
        };
        const created = await call('POST', `${CORE}/users/`, JSON.stringify(sent));
        expect(created.status).toBe(201);
        expect(userProblem(created.body)).toBeUndefined();
        expect(created.body).toEqual({
          pk: expect.any(Number),
          uuid: expect.any(String),
          username: sent.username,
          email: sent.email,
          name: sent.name,
          is_active: sent.is_active ?? true,
          email_verified: sent.email_verified ?? false,
          last_login: null,
          attributes: asJson(sent.attributes ?? {}),
          groups: [...sent.groups].sort(),
        });
        const path = `${CORE}/users/${created.body.pk}/`;
        expect((await call('GET', path)).body).toEqual(created.body);

        const byEmail = await call('GET', `${CORE}/users/?email=${pct(sent.email.toUpperCase())}`);
        expect(byEmail.status).toBe(200);
        expect(byEmail.body.results.map((u: { pk: number }) => u.pk)).toEqual([created.body.pk]);

        const changes = {
          ...patch,
          ...(patch.username ? { username: `p${n}-${patch.username}` } : {}),
          ...(patch.email ? { email: `p${n}.${patch.email}` } : {}),
        };
        const patched = await call('PATCH', path, JSON.stringify(changes));
        expect(patched.status).toBe(200);
        // A new address is unproven unless the same change says otherwise.
        const verified = changes.email_verified ?? (changes.email ? false : created.body.email_verified);
        expect(patched.body).toEqual({ ...created.body, ...asJson(changes), email_verified: verified });
        expect((await call('GET', path)).body).toEqual(patched.body);
        expect((await call('DELETE', path)).status).toBe(204);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('valid random groups are created, read back, patched, and gain and lose members exactly as asked', async () => {
    const group = fc.record({ name: validText(120), attributes: fc.option(validAttributes, { nil: undefined }) });
    const change = fc.record({ name: validText(120), attributes: validAttributes }, { requiredKeys: [] });

    await fc.assert(
      fc.asyncProperty(group, change, fc.array(fc.boolean(), { maxLength: 4 }), async (input, patch, moves) => {
        const n = nextId();
        const sent = { ...input, name: `g${n}-${input.name}` };
        const created = await call('POST', `${CORE}/groups/`, JSON.stringify(sent));
        expect(created.status).toBe(201);
        expect(created.body).toEqual({
          pk: expect.any(String),
          name: sent.name,
          users: [],
          users_count: 0,
          attributes: asJson(sent.attributes ?? {}),
        });
        const path = `${CORE}/groups/${created.body.pk}/`;
        expect((await call('GET', path)).body).toEqual(created.body);

        const changes = { ...patch, ...(patch.name ? { name: `h${n}-${patch.name}` } : {}) };
        const patched = await call('PATCH', path, JSON.stringify(changes));
        expect(patched.status).toBe(200);
        expect(patched.body).toEqual({ ...created.body, ...asJson(changes) });

        let member = false;
        for (const add of moves) {
          expect((await call('POST', `${path}${add ? 'add_user' : 'remove_user'}/`, JSON.stringify({ pk: targetUser }))).status).toBe(204);
          member = add;
          expect((await call('GET', path)).body.users).toEqual(member ? [targetUser] : []);
        }
        expect((await call('DELETE', path)).status).toBe(204);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('search finds a user and a group by any piece of their name, taken verbatim or with its ASCII letters in the other case', async () => {
    const piece = fc.tuple(caseTricky, fc.nat(), fc.nat()).map(([name, a, b]) => {
      const chars = [...name];
      const start = a % chars.length;
      const end = start + 1 + (b % (chars.length - start));
      return { name, piece: chars.slice(start, end).join('') };
    });

    await fc.assert(
      fc.asyncProperty(piece, fc.boolean(), async ({ name, piece: term }, swap) => {
        const n = nextId();
        const search = swap ? swapAsciiCase(term) : term;
        const email = `search${n}@example.com`;
        const user = await call('POST', `${CORE}/users/`, JSON.stringify({ username: email, email, name }));
        expect(user.status).toBe(201);
        const group = await call('POST', `${CORE}/groups/`, JSON.stringify({ name: `${n}#${name}` }));
        expect(group.status).toBe(201);
        try {
          const users = await call('GET', `${CORE}/users/?email=${pct(email)}&search=${pct(search)}`);
          expect(users.status).toBe(200);
          expect(users.body.results.map((u: { name: string }) => u.name)).toEqual([name]);
          const found = await call('GET', `${CORE}/groups/?page_size=100&search=${pct(search)}`);
          expect(found.status).toBe(200);
          expect(found.body.results.map((g: { pk: string }) => g.pk)).toContain(group.body.pk);
        } finally {
          await call('DELETE', `${CORE}/users/${user.body.pk}/`);
          await call('DELETE', `${CORE}/groups/${group.body.pk}/`);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
