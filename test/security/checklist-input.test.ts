/**
 * Security checklist, input part: SQL and LIKE meta characters in the API's filters match literally and harm
 * nothing, and a wrong password for a known e-mail answers exactly like one for an unknown e-mail (the
 * timings of both are printed for the reader, never asserted).
 */
import { performance } from 'node:perf_hooks';
import { engines } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, formOf, pkceRequest, submit, type HttpResponse } from '../helpers/http-client.js';
import { firstPage } from '../helpers/checklist.js';

describe.each(engines)('security checklist: input (%s)', (engine) => {
  describe('SQL and LIKE meta characters in API filters', () => {
    let s: TestServer;
    const users: Record<string, number> = {};
    const groups: Record<string, string> = {};
    const USERS = ['100% Real', 'snake_case Person', 'Back\\slash Person', "Quote ' OR 1=1 -- Person", 'Plain Person', 'Another Plain'];
    const GROUPS = ['50% off', 'under_score', 'back\\slash group', 'plain group'];

    beforeAll(async () => {
      s = await startTestServer(engine);
      for (const [i, name] of USERS.entries()) {
        const created = await s.api('/api/v3/core/users/', {
          json: { username: `meta${i}@example.com`, email: `meta${i}@example.com`, name },
        });
        expect(created.status).toBe(201);
        users[name] = created.body.pk;
      }
      for (const name of GROUPS) {
        const created = await s.api('/api/v3/core/groups/', { json: { name } });
        expect(created.status).toBe(201);
        groups[name] = created.body.pk;
      }
    });
    afterAll(async () => s?.close());

    const list = async (path: string) => {
      const answer = await s.api(path);
      expect(answer.status).toBe(200);
      return (answer.body.results as Array<{ name: string }>).map((row) => row.name);
    };
    const q = (value: string) => encodeURIComponent(value);

    test.each([
      ['%', ['100% Real']],
      ['_', ['snake_case Person']],
      ['\\', ['Back\\slash Person']],
      ["' OR 1=1 --", ["Quote ' OR 1=1 -- Person"]],
      ['%_%', []],
      ["' OR '1'='1", []],
      ['"; drop table users; --', []],
      ['plain', ['Plain Person', 'Another Plain']],
    ])('users ?search=%s matches only literally: %j', async (search, expected) => {
      expect(await list(`/api/v3/core/users/?search=${q(search)}`)).toEqual(expected);
    });

    test.each(["' OR 1=1 --", '%', '%@example.com', 'meta_@example.com', '\\', '"; drop table users; --'])(
      'users ?email=%s matches nobody (exact match, no wildcards)',
      async (email) => {
        expect(await list(`/api/v3/core/users/?email=${q(email)}`)).toEqual([]);
      },
    );

    test('users ?email= still finds the exact address in any case (the control for the above)', async () => {
      expect(await list(`/api/v3/core/users/?email=${q('META0@Example.COM')}`)).toEqual(['100% Real']);
    });

    test.each([
      ['%', ['50% off']],
      ['_', ['under_score']],
      ['\\', ['back\\slash group']],
      ["' OR 1=1 --", []],
      ['"; drop table groups; --', []],
      ['group', ['back\\slash group', 'plain group']],
    ])('groups ?search=%s matches only literally: %j', async (search, expected) => {
      expect((await list(`/api/v3/core/groups/?search=${q(search)}`)).sort()).toEqual([...expected].sort());
    });

    test('the tables survive: every user and group is still there and writable', async () => {
      for (const path of ['users', 'groups']) {
        await s.api(`/api/v3/core/${path}/?search=${q("'; drop table " + path + '; --')}`);
      }
      expect((await s.api('/api/v3/core/users/?page_size=100')).body.pagination.count).toBe(USERS.length);
      expect((await s.api('/api/v3/core/groups/?page_size=100')).body.pagination.count).toBe(GROUPS.length);
      const added = await s.api(`/api/v3/core/groups/${groups['plain group']}/add_user/`, { json: { pk: users['100% Real'] } });
      expect(added.status).toBe(204);
      expect((await s.api(`/api/v3/core/users/${users['100% Real']}/`)).body.groups).toEqual([groups['plain group']]);
    });
  });

  describe('known and unknown e-mails answer alike', () => {
    let idp: OidcTestServer;

    beforeAll(async () => {
      idp = await startOidcServer(engine, 'http://127.0.0.1:1/callback', [{ slug: 'wiki' }], {
        // bcrypt at a cost where a skipped verification would stand out in the printed medians (tests default to 4).
        overrides: {
          passwords: { bcrypt_cost: 10 },
          rate_limits: { account_failures: 1000, account_failures_all_addresses: 1000, ip_per_minute: 100000 },
        },
      });
    });
    afterAll(async () => idp?.close());

    async function emailPage(http: CookieClient): Promise<HttpResponse> {
      const page = await firstPage(http, await pkceRequest(idp.apps.wiki!, idp.url), 'http://127.0.0.1:1/callback');
      if (page instanceof URL) throw new Error('no e-mail page');
      return page;
    }

    /** The page with the e-mail replaced: what is left must not tell known from unknown addresses. */
    const withoutEmail = (page: HttpResponse, email: string) => ({ status: page.status, body: page.text.split(email).join('EMAIL') });
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

    test('the e-mail step shows the same password page for a known and an unknown address', async () => {
      const known = (await idp.user()).email;
      const unknown = `nobody-${Date.now()}@example.com`;
      const http = new CookieClient();
      const page = await emailPage(http);
      const forKnown = await submit(http, page, { email: known });
      const forUnknown = await submit(http, page, { email: unknown });
      expect(forKnown.text).toContain('<h1>Enter your password</h1>');
      expect(withoutEmail(forUnknown, unknown)).toEqual(withoutEmail(forKnown, known));
    });

    test('both fields of the first page, wrong password: the same answer for known, unknown and inactive addresses', async () => {
      const known = (await idp.user()).email;
      const inactive = (await idp.user({ is_active: false })).email;
      const unknown = `nobody-first-${Date.now()}@example.com`;
      const http = new CookieClient();
      const form = formOf(await emailPage(http)); // one interaction: same uid and csrf in every answer
      const answers = [];
      for (const email of [known, unknown, inactive]) {
        answers.push(
          withoutEmail(await http.request(form.action, { form: { ...form.fields, email, password: `wrong ${PASSWORD}` } }), email),
        );
      }
      expect(answers[0]!.status).toBe(400);
      expect(answers[0]!.body).toContain('Incorrect e-mail or password.');
      expect(answers[0]!.body).toContain('<h1>Enter your password</h1>');
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    });

    test('30 wrong passwords for a known and 30 for an unknown e-mail: identical answers (medians printed)', async () => {
      const known = `known-${Date.now()}@example.com`;
      const unknown = `unknown-${Date.now()}@example.com`;
      await idp.user({ email: known });
      const http = new CookieClient();
      const form = formOf(await emailPage(http)); // one interaction for all 60 attempts: same uid and csrf in every answer
      const password = form.action.replace(/email$/, 'password');

      const timings: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
      const answers: Record<'known' | 'unknown', Array<{ status: number; body: string }>> = { known: [], unknown: [] };
      for (let i = 0; i < 30; i++) {
        for (const [kind, email] of [
          ['known', known],
          ['unknown', unknown],
        ] as const) {
          const started = performance.now();
          const answer = await http.request(password, { form: { ...form.fields, email, password: `wrong ${PASSWORD} ${i}` } });
          timings[kind].push(performance.now() - started);
          answers[kind].push(withoutEmail(answer, email));
        }
      }
      console.log(
        `[${engine}] wrong password, median of 30: known e-mail ${median(timings.known).toFixed(1)} ms, ` +
          `unknown e-mail ${median(timings.unknown).toFixed(1)} ms (reported only; bcrypt cost ${idp.settings.passwords.bcrypt_cost})`,
      );

      const first = answers.known[0]!;
      expect(first.status).toBe(400);
      expect(first.body).toContain('Incorrect e-mail or password.');
      for (const answer of [...answers.known, ...answers.unknown]) expect(answer).toEqual(first);
    });
  });
});
