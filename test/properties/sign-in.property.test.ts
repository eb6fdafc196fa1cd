/** Property-based tests of the sign-in forms: random fields posted to every step of a real interaction never get a 5xx, every answer is a page of the layout, and nobody is signed in without the real password. */
import fc from 'fast-check';
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, formOf, pkceRequest, submit, type HttpResponse } from '../helpers/http-client.js';
import { totpCode } from '../helpers/totp.js';
import { PROTOTYPE_KEYS, RAW_PIECES, anyText, pageProblem, pct } from '../helpers/properties.js';
import { confirmTotp, pendingTotpSecret } from '../../src/domain/totp.js';

const NUM_RUNS = 100;
const CALLBACK = 'http://127.0.0.1:1/callback';
const ACTIONS = ['email', 'password', 'setup', 'mfa', 'enrol', 'finish'] as const;
type Action = (typeof ACTIONS)[number];

/** Where a run starts: the page of that step, reached the way a person would, with its genuine hidden fields. */
interface Step {
  http: CookieClient;
  app: 'wiki' | 'vault';
  page: HttpResponse;
  base: string;
  fields: Record<string, string>;
}

describe.each(engines)('sign-in form properties (%s)', (engine) => {
  let idp: OidcTestServer;
  /** Users the random fields may name: one with PASSWORD, one without a password, one deactivated. */
  const pool: Record<string, string> = {};
  let mfaEmail: string;
  let enrolEmail: string;
  const csrfOfOtherFlows: string[] = ['none yet'];

  beforeAll(async () => {
    idp = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki' }, { slug: 'vault', require_mfa: true }]);
    pool.$EMAIL = (await idp.user()).email;
    pool.$FRESH = (await idp.user({ password: null })).email;
    pool.$INACTIVE = (await idp.user({ is_active: false })).email;
    // Only ever used with their right password, so the per-account limit never locks the steps behind them.
    const mfa = await idp.user();
    mfaEmail = mfa.email;
    const key = idp.settings.secrets.key;
    const secret = (await pendingTotpSecret(idp.store, (await idp.store.users.findById(mfa.pk))!, key, true))!;
    expect(await confirmTotp(idp.store, mfa.pk, totpCode(secret, Date.now() - 30_000), key)).toBe('ok');
    enrolEmail = (await idp.user()).email;
  });
  afterAll(async () => idp?.close());

  async function reach(action: Action, slug: 'wiki' | 'vault'): Promise<Step> {
    const app = ['enrol', 'finish'].includes(action) ? 'vault' : action === 'mfa' ? 'wiki' : slug;
    const http = new CookieClient();
    const first = await http.follow(await http.request((await pkceRequest(idp.apps[app]!, idp.url)).url.href), CALLBACK);
    if (first instanceof URL) throw new Error('a new browser was signed in already');
    let page = first;
    const after = async (fields: Record<string, string>) => {
      page = await submit(http, page, fields);
      expect(page.status).toBe(200);
    };
    // A user of their own: each reaches the setup page by a mailed code, and an account is mailed five an hour.
    if (action === 'setup') await after({ email: (await idp.user({ password: null })).email });
    if (action === 'mfa') await after({ email: mfaEmail }).then(() => after({ password: PASSWORD }));
    if (action === 'enrol') await after({ email: enrolEmail }).then(() => after({ password: PASSWORD }));
    if (action === 'finish') {
      await after({ email: (await idp.user()).email });
      await after({ password: PASSWORD });
      const secret = /id="totp-secret">([^<]*)</.exec(page.text)![1]!.replace(/\s/g, '');
      await after({ code: totpCode(secret) });
    }
    const form = formOf(page);
    return { http, app, page, base: new URL(form.action).pathname.replace(/[^/]*$/, ''), fields: form.fields };
  }

  test('random fields posted to every step: a page of the layout or a redirect, never a 5xx, never a sign-in without the real password', async () => {
    const name = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('email', 'password', 'code', 'confirmation', 'ticket', 'username') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'email[]',
          'email[toString]',
          'csrf[]',
          'ticket[a]',
          '__proto__[x]',
          'password[length]',
          ...PROTOTYPE_KEYS,
        ),
      },
      { weight: 1, arbitrary: anyText(10, 0) },
    );
    const value = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          '$EMAIL',
          '$FRESH',
          '$INACTIVE',
          ' $EMAIL ',
          PASSWORD,
          `${PASSWORD} `,
          '$TICKET',
          '$TICKET.x',
          '123456',
          '000000',
          ' 123 456 ',
        ),
      },
      { weight: 1, arbitrary: fc.emailAddress() },
      { weight: 5, arbitrary: anyText(40, 20_000) },
    );
    const post = fc.record({
      // Enrolment pages draw a QR code (the slow part of a run): those steps are started less often.
      start: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom<Action>('email', 'password', 'mfa') },
        { weight: 2, arbitrary: fc.constant<Action>('setup') },
        { weight: 1, arbitrary: fc.constantFrom<Action>('enrol', 'finish') },
      ),
      slug: fc.constantFrom('wiki', 'vault') as fc.Arbitrary<'wiki' | 'vault'>,
      // Mostly the step's own action; sometimes another step's, or a path that names no interaction.
      target: fc.oneof(
        { weight: 6, arbitrary: fc.constant('own') },
        { weight: 2, arbitrary: fc.constantFrom(...ACTIONS) },
        { weight: 1, arbitrary: fc.constantFrom('other-uid', 'other-slug', 'email/x') },
      ),
      fields: fc.array(fc.tuple(name, value, fc.boolean()), { maxLength: 6 }),
      csrf: fc.constantFrom('right', 'right', 'right', 'missing', 'random', 'other flow', 'twice'),
      junk: fc.option(fc.constantFrom(...RAW_PIECES), { nil: undefined, freq: 6 }),
      type: fc.oneof(
        { weight: 8, arbitrary: fc.constant('application/x-www-form-urlencoded') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'application/json',
            'text/plain',
            'multipart/form-data; boundary=x',
            '',
            'application/x-www-form-urlencoded; charset=bogus',
          ),
        },
      ),
    });

    await fc.assert(
      fc.asyncProperty(post, async ({ start, slug, target, fields, csrf, junk, type }) => {
        const step = await reach(start, slug);
        const ticket = step.fields.ticket ?? '';
        const fill = (text: string) => text.replace(/\$(EMAIL|FRESH|INACTIVE)/g, (key) => pool[key]!).replace(/\$TICKET/g, ticket);

        // The form as its page has it, then the random fields: added beside or put in place of a field of that name.
        let pairs: Array<[string, string]> = Object.entries(step.fields).filter(([key]) => key !== 'csrf');
        for (const [key, raw, replace] of fields) {
          if (replace) pairs = pairs.filter(([k]) => k !== key);
          pairs.push([key, fill(raw)]);
        }
        const csrfValue = {
          right: step.fields.csrf!,
          twice: step.fields.csrf!,
          random: 'x'.repeat(43),
          'other flow': csrfOfOtherFlows.at(-1)!,
          missing: undefined,
        }[csrf];
        if (csrfValue !== undefined) pairs.push(['csrf', csrfValue]);
        if (csrf === 'twice') pairs.push(['csrf', step.fields.csrf!]);
        csrfOfOtherFlows.push(step.fields.csrf!);

        const action: Action | undefined =
          target === 'own' ? start : (ACTIONS as readonly string[]).includes(target) ? (target as Action) : undefined;
        const uid = step.base.split('/')[4]!;
        const others: Record<string, string> = {
          'other-uid': `${step.base.replace(uid, 'x'.repeat(uid.length))}email`,
          'other-slug': `${step.base.replace(`/${step.app}/`, '/nope/')}email`,
          'email/x': `${step.base}email/x`,
        };
        const path = action ? `${step.base}${action}` : others[target]!;
        const body = [...pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`), ...(junk ? [junk] : [])].join('&');
        const answer = await step.http.request(`${idp.url}${path}`, { body, headers: { 'Content-Type': type } });

        // Only the real password of the real user at the password step (or on the first page, which takes both) of an
        // application without MFA, or the last step after an enrolment that really happened (the recovery codes page),
        // may sign anyone in; each with its csrf.
        const said = (key: string, test: (v: string) => boolean) => pairs.some(([k, v]) => k === key && test(v));
        const rightCsrf = said('csrf', (v) => v === step.fields.csrf) && csrf !== 'random' && csrf !== 'other flow';
        const mayComplete =
          rightCsrf &&
          (((action === 'password' || action === 'email') &&
            step.app === 'wiki' &&
            said('password', (v) => v === PASSWORD) &&
            said('email', (v) => v.trim().toLowerCase() === pool.$EMAIL)) ||
            (action === 'finish' && start === 'finish' && said('ticket', (v) => v === ticket)));

        expect(answer.status).toBeLessThan(500);
        const end = answer.status >= 300 && answer.status < 400 ? await step.http.follow(answer, CALLBACK) : answer;
        if (end instanceof URL) {
          if (end.searchParams.has('code')) expect(mayComplete).toBe(true);
        } else {
          expect(end.status).toBeLessThan(500);
          expect(pageProblem(end.status, end.headers.get('content-type'), end.text)).toBeUndefined();
        }

        // Whatever the page said: this browser has a session only if the sign-in was allowed to complete.
        const silent = await step.http.follow(
          await step.http.request((await pkceRequest(idp.apps[step.app]!, idp.url, { prompt: 'none' })).url.href),
          CALLBACK,
        );
        expect(silent).toBeInstanceOf(URL);
        if ((silent as URL).searchParams.has('code')) expect(mayComplete).toBe(true);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('any method on the sign-in addresses, with or without a live interaction: a page of the layout, never a 5xx or plain text', async () => {
    const live = await reach('email', 'wiki');
    const uid = live.base.split('/')[4]!;
    const path = fc.oneof(
      fc
        .tuple(
          fc.constantFrom('wiki', 'vault', 'nope'),
          fc.constantFrom(uid, 'x'.repeat(uid.length), ''),
          fc.constantFrom('', ...ACTIONS, 'email/x'),
        )
        .map(([app, id, action]) => `/if/flow/${app}/${id}/${action}`),
      fc.oneof(fc.constantFrom('abc', 'x'.repeat(43)), anyText(20, 0)).map((token) => `/if/recovery/${pct(token)}/`),
    );
    const request = fc.record({
      path,
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
      body: fc.option(fc.constant(`csrf=${live.fields.csrf}&email=${pct(pool.$EMAIL!)}`), { nil: undefined }),
    });

    await fc.assert(
      fc.asyncProperty(request, async ({ path, method, body }) => {
        const withBody = body !== undefined && !['GET', 'OPTIONS'].includes(method);
        const answer = await live.http.request(`${idp.url}${path}`, {
          method,
          ...(withBody ? { body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } } : {}),
        });
        expect(answer.status).toBeLessThan(500);
        if (answer.status >= 300 && answer.status < 400) return;
        if (method === 'OPTIONS' && answer.status === 200 && answer.text === '') return; // an Allow answer has no page
        expect(pageProblem(answer.status, answer.headers.get('content-type'), answer.text)).toBeUndefined();
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
