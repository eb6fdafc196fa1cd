/** Property-based tests of the protocol endpoints (authorize, token, userinfo, end-session): random parameters never get a 5xx, errors keep the OAuth or page shape, and no redirect leaves for an unregistered URI. */
import fc from 'fast-check';
import { engines } from '../helpers/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, formOf, httpSignIn, pkceRequest, withoutOwnScripts } from '../helpers/http-client.js';
import {
  JSON_ENDPOINT_ERRORS,
  OAUTH_ERRORS,
  RAW_PIECES,
  anyText,
  isHeaderValue,
  oauthErrorProblem,
  pageProblem,
  pct,
  wirePairs,
} from '../helpers/properties.js';

const NUM_RUNS = 200;
const CALLBACK = 'http://127.0.0.1:1/callback';
const LOGGED_OUT = 'http://127.0.0.1:1/logged-out';
// Long values, but a request head stays near Node's 16 KiB limit; past it Node answers 431 itself (accepted below).
const text = (max = 40) => anyText(max, 1_000);
const HEAD_LIMIT = 15_000;
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

type Pairs = Array<[string, string]>;
interface ClientAuth {
  kind: string;
  id?: string;
  secret?: string;
  header?: string;
}

/** A parameter value: mostly `usual`, sometimes `other`. */
const mostly = <T>(usual: fc.Arbitrary<T>, other: fc.Arbitrary<T>, weight = 6) =>
  fc.oneof({ weight, arbitrary: usual }, { weight: 1, arbitrary: other });
const optional = <T>(value: fc.Arbitrary<T>, freq = 2) => fc.option(value, { nil: undefined, freq });

/**
 * Parameters: usually a valid request with up to three changes (a parameter set to a random value, dropped, or
 * repeated), sometimes a random subset; then a few random extra pairs, and now and then raw junk (%00, %C3%28…).
 */
function parameters(base: fc.Arbitrary<Pairs>, values: Map<string, fc.Arbitrary<string>>) {
  const key = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...values.keys()) }, { weight: 1, arbitrary: anyText(10, 0) });
  const valueOf = (name: string) => values.get(name) ?? text();
  const change = fc.oneof(
    { weight: 3, arbitrary: key.chain((name) => valueOf(name).map((value) => ({ op: 'set', name, value }))) },
    { weight: 1, arbitrary: key.map((name) => ({ op: 'drop', name, value: '' })) },
    { weight: 1, arbitrary: key.map((name) => ({ op: 'repeat', name, value: '' })) },
  );
  const changed = fc.tuple(base, fc.array(change, { maxLength: 3 })).map(([pairs, changes]) =>
    changes.reduce<Pairs>((result, { op, name, value }) => {
      if (op === 'set') return [...result.filter(([k]) => k !== name), [name, value]];
      if (op === 'drop') return result.filter(([k]) => k !== name);
      return [...result, ...result.filter(([k]) => k === name)];
    }, pairs),
  );
  const subset = fc.array(
    fc.constantFrom(...values.keys()).chain((name) => valueOf(name).map((value) => [name, value] as [string, string])),
    { maxLength: 10 },
  );
  const junk = wirePairs(fc.constantFrom('state', 'scope', 'x'), fc.constantFrom(...RAW_PIECES), 2);
  return fc
    .tuple(
      fc.oneof({ weight: 3, arbitrary: changed }, { weight: 1, arbitrary: subset }),
      fc.array(fc.tuple(anyText(10, 0), text(20)), { maxLength: 2 }),
      fc.option(junk, { nil: undefined, freq: 5 }),
    )
    .map(([pairs, extra, raw]) => ({ pairs: [...pairs, ...extra], junk: raw }));
}
const wire = (pairs: Pairs, junk?: string) => [...pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`), ...(junk ? [junk] : [])].join('&');
/** The value the server decodes from our own encoding (a lone surrogate arrives as U+FFFD). */
const decoded = (value: string) => Buffer.from(value, 'utf8').toString('utf8');
const sentOnce = (pairs: Pairs, key: string, junk?: string) => {
  const found = pairs.filter(([k]) => k === key);
  return found.length === 1 && !junk?.includes(key) ? decoded(found[0]![1]) : undefined;
};

describe.each(engines)('protocol endpoint properties (%s)', (engine) => {
  let idp: OidcTestServer;
  /** A browser signed in to wiki: fresh codes without a password. */
  const sso = new CookieClient();
  const real: Record<string, string> = { $ACCESS: '', $REFRESH: '', $ID_TOKEN: '', $CRM_ID_TOKEN: '' };
  /** A fresh authorization code for wiki from the signed-in browser, and its PKCE verifier. */
  async function freshCode(): Promise<{ code: string; verifier: string }> {
    const request = await pkceRequest(idp.apps.wiki!, idp.url);
    const callback = await sso.follow(await sso.request(request.url.href), CALLBACK);
    if (!(callback instanceof URL)) throw new Error(`no code from the SSO session: ${callback.status}`);
    return { code: callback.searchParams.get('code')!, verifier: request.verifier };
  }
  /** Replaces placeholders by the current real values; `$CODE`/`$VERIFIER` by a fresh code and its verifier. */
  async function fill(pairs: Pairs): Promise<Pairs> {
    if (pairs.some(([, v]) => /\$(CODE|VERIFIER)/.test(v))) {
      const { code, verifier } = await freshCode();
      Object.assign(real, { $CODE: code, $VERIFIER: verifier });
    }
    return pairs.map(([k, v]) => [k, v.replace(/\$(ACCESS|REFRESH|ID_TOKEN|CRM_ID_TOKEN|CODE|VERIFIER)/g, (name) => real[name] ?? name)]);
  }
  async function freshTokens() {
    const { code, verifier } = await freshCode();
    const tokens = await postToken({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: CALLBACK,
      client_id: 'client-wiki',
      client_secret: idp.apps.wiki!.client_secret,
    });
    expect(tokens.status).toBe(200);
    Object.assign(real, { $ACCESS: tokens.body.access_token, $REFRESH: tokens.body.refresh_token, $ID_TOKEN: tokens.body.id_token });
  }
  const postToken = async (form: Record<string, string>) => {
    const response = await fetch(`${idp.url}/application/o/token/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    return { status: response.status, body: await response.json() };
  };

  beforeAll(async () => {
    idp = await startOidcServer(engine, CALLBACK, [{ slug: 'wiki', post_logout_redirect_uris: [LOGGED_OUT] }, { slug: 'crm' }]);
    const user = await idp.user();
    await httpSignIn(sso, idp.apps.wiki!, idp.url, user.email, PASSWORD);
    const crm = await httpSignIn(new CookieClient(), idp.apps.crm!, idp.url, user.email, PASSWORD);
    const tokens = await postToken({
      grant_type: 'authorization_code',
      code: crm.callback.searchParams.get('code')!,
      code_verifier: crm.request.verifier,
      redirect_uri: CALLBACK,
      client_id: 'client-crm',
      client_secret: idp.apps.crm!.client_secret,
    });
    real.$CRM_ID_TOKEN = tokens.body.id_token;
    await freshTokens();
  });
  afterAll(async () => idp?.close());

  /** A JSON protocol answer: never a 5xx, JSON with no-store, and an OAuth error from the allowed set unless 200. */
  function expectOAuthJson(status: number, headers: Headers, body: unknown) {
    expect(status).toBeLessThan(500);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(headers.get('cache-control')).toContain('no-store');
    if (status !== 200) expect(oauthErrorProblem(body, JSON_ENDPOINT_ERRORS)).toBeUndefined();
  }

  test('authorize: random parameters get the sign-in page, an error at the registered redirect_uri (with the state), or a 400 page', async () => {
    const values = new Map<string, fc.Arbitrary<string>>([
      ['client_id', mostly(fc.constantFrom('client-wiki', 'client-crm'), anyText(20, 0), 3)],
      [
        'redirect_uri',
        mostly(
          fc.constant(CALLBACK),
          fc.oneof(
            fc.constantFrom(
              `${CALLBACK}/`,
              `${CALLBACK}?x=1`,
              `${CALLBACK}#f`,
              `${CALLBACK}/../evil`,
              'http://127.0.0.1:1/Callback',
              'https://evil.example/cb',
              LOGGED_OUT,
              'javascript:alert(1)',
            ),
            fc.webUrl(),
            text(),
          ),
          1,
        ),
      ],
      [
        'response_type',
        mostly(fc.constant('code'), fc.oneof(fc.constantFrom('token', 'id_token', 'code id_token', 'none', 'CODE', ''), text()), 1),
      ],
      [
        'scope',
        mostly(
          fc.constantFrom('openid profile email', 'openid'),
          fc.oneof(fc.constantFrom('profile', 'openid offline_access', 'openid address', ''), text()),
          1,
        ),
      ],
      ['code_challenge', mostly(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), text(), 1)],
      ['code_challenge_method', mostly(fc.constant('S256'), fc.oneof(fc.constantFrom('plain', 's256', ''), text()), 1)],
      ['state', text(60)],
      ['nonce', text()],
      ['prompt', mostly(fc.constantFrom('none', 'login', 'consent', 'select_account', 'none login', 'create'), text(), 2)],
      ['max_age', mostly(fc.constantFrom('0', '1', '-1', '1e3', '300', '99999999999999999999'), text(), 2)],
      ['response_mode', mostly(fc.constantFrom('query', 'fragment', 'form_post', 'jwt', 'web_message'), text(), 2)],
      ['id_token_hint', mostly(fc.constantFrom('$ID_TOKEN', '$CRM_ID_TOKEN', '$ID_TOKEN.x'), text(), 2)],
      ['login_hint', mostly(fc.constantFrom('"><script>alert(1)</script>', 'a@example.com'), text(), 1)],
      ['ui_locales', text()],
      ['acr_values', text()],
      ['display', text()],
      ['claims', mostly(fc.constantFrom('{"userinfo":{"email":null}}', '{"id_token":{"acr":{"essential":true}}}', '{'), text(), 2)],
      ['request', text()],
      ['request_uri', text()],
      ['registration', text()],
      ['resource', text()],
    ]);
    const valid = fc
      .record({
        client: fc.constantFrom('client-wiki', 'client-crm'),
        challenge: fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        state: text(60),
        nonce: text(),
      })
      .map(({ client, challenge, state, nonce }): Pairs => [
        ['client_id', client],
        ['redirect_uri', CALLBACK],
        ['response_type', 'code'],
        ['scope', 'openid profile email'],
        ['code_challenge', challenge],
        ['code_challenge_method', 'S256'],
        ['state', state],
        ['nonce', nonce],
      ]);

    await fc.assert(
      fc.asyncProperty(parameters(valid, values), async ({ pairs: raw, junk }) => {
        const pairs = await fill(raw);
        const http = new CookieClient();
        const response = await http.request(`${idp.url}/application/o/authorize/?${wire(pairs, junk)}`);
        if (response.status === 431 && response.url.length > HEAD_LIMIT) return;
        expect(response.status).toBeLessThan(500);
        const location = response.headers.get('location');
        if (response.text.includes('<title>Submitting Callback</title>')) {
          // response_mode=form_post: the engine's self-submitting form (200, or the error's status), to the registered redirect_uri only.
          expect(response.headers.get('content-type')).toMatch(/^text\/html/);
          expect([...response.text.matchAll(/<form[^>]*action="([^"]*)"/g)].map((match) => match[1])).toEqual([CALLBACK]);
          expect(OAUTH_ERRORS.has(/name="error" value="([^"]*)"/.exec(response.text)?.[1] ?? '')).toBe(true);
          expect(response.text).not.toMatch(/name="code"/);
        } else if (response.status >= 300 && response.status < 400) {
          const to = new URL(location!, idp.url);
          if (to.origin === idp.url) {
            // The sign-in page of the application named by client_id; it renders whatever the request carried, escaped.
            const slug = { 'client-wiki': 'wiki', 'client-crm': 'crm' }[sentOnce(pairs, 'client_id', junk) ?? ''];
            expect(to.pathname).toMatch(new RegExp(`^/if/flow/${slug}/[^/]+/$`));
            const page = await http.request(to.href);
            expect(page.status).toBe(200);
            expect(pageProblem(page.status, page.headers.get('content-type'), page.text)).toBeUndefined();
            expect(withoutOwnScripts(page.text)).not.toContain('<script');
            return;
          }
          expect(`${to.origin}${to.pathname}`).toBe(CALLBACK); // the only redirect_uri either application registered
          const answer = new URLSearchParams(to.search || to.hash.slice(1));
          expect(OAUTH_ERRORS.has(answer.get('error') ?? '')).toBe(true);
          expect(answer.has('code')).toBe(false);
          const state = sentOnce(pairs, 'state', junk);
          if (state) expect(answer.get('state')).toBe(state);
        } else {
          expect(location).toBeNull();
          expect(pageProblem(response.status, response.headers.get('content-type'), response.text)).toBeUndefined();
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('token: random grants, codes, verifiers, client authentication and content types get a JSON OAuth answer, never a 5xx', async () => {
    const wikiSecret = idp.apps.wiki!.client_secret;
    // Wrong secrets only ever for crm or unknown clients: failures are throttled per client, and wiki must stay usable.
    const auth: fc.Arbitrary<ClientAuth> = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.constantFrom<ClientAuth>(
          { kind: 'basic', id: 'client-wiki', secret: wikiSecret },
          { kind: 'post', id: 'client-wiki', secret: wikiSecret },
        ),
      },
      { weight: 1, arbitrary: fc.constant<ClientAuth>({ kind: 'none' }) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom('basic', 'post'),
            fc.oneof(fc.constant('client-crm'), anyText(20, 0)),
            fc.oneof(fc.constant(`${wikiSecret}x`), anyText(20, 0)),
          )
          .map(([kind, id, secret]): ClientAuth => ({ kind, id, secret })),
      },
      {
        weight: 1,
        arbitrary: fc
          .oneof(text(), fc.constantFrom('Basic', 'Basic !!!', 'Basic Og==', 'Basic OmE=', 'Bearer x', 'Basic YTpi YTpi'))
          .filter(isHeaderValue)
          .map((header): ClientAuth => ({ kind: 'header', header })),
      },
    );
    const values = new Map<string, fc.Arbitrary<string>>([
      [
        'grant_type',
        mostly(
          fc.constantFrom('authorization_code', 'refresh_token'),
          fc.oneof(
            fc.constantFrom('client_credentials', 'password', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code', ''),
            text(),
          ),
          1,
        ),
      ],
      ['code', mostly(fc.constant('$CODE'), fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), text()), 1)],
      ['refresh_token', mostly(fc.constantFrom('$REFRESH', '$ACCESS'), fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), text()), 1)],
      ['code_verifier', mostly(fc.constant('$VERIFIER'), fc.oneof(fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/), text()), 1)],
      ['redirect_uri', mostly(fc.constant(CALLBACK), text(), 1)],
      ['scope', mostly(fc.constantFrom('openid', 'openid profile email', 'offline_access'), text(), 1)],
      ['resource', text()],
      ['client_assertion', text()],
      ['client_assertion_type', text()],
    ]);
    const valid = fc.constantFrom<Pairs>(
      [
        ['grant_type', 'refresh_token'],
        ['refresh_token', '$REFRESH'],
      ],
      [
        ['grant_type', 'authorization_code'],
        ['code', '$CODE'],
        ['code_verifier', '$VERIFIER'],
        ['redirect_uri', CALLBACK],
      ],
    );
    const contentType = mostly(
      fc.constant('application/x-www-form-urlencoded'),
      fc.constantFrom(
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
        '',
        'application/x-www-form-urlencoded; charset=latin1',
        'application/x-www-form-urlencoded; charset=bogus',
        'APPLICATION/X-WWW-FORM-URLENCODED',
      ),
      8,
    );
    // Now and then a body past the engine's 56 KiB form limit.
    const padding = fc.option(fc.integer({ min: 50_000, max: 120_000 }), { nil: undefined, freq: 8 });

    await fc.assert(
      fc.asyncProperty(
        parameters(valid, values),
        auth,
        contentType,
        fc.boolean(),
        padding,
        async ({ pairs: raw, junk }, client, type, asJson, pad) => {
          const pairs = await fill(raw);
          const headers: Record<string, string> = { 'Content-Type': type };
          const encoded = (value: string) => encodeURIComponent(value.toWellFormed());
          if (client.kind === 'basic')
            headers.Authorization = `Basic ${Buffer.from(`${encoded(client.id!)}:${encoded(client.secret!)}`).toString('base64')}`;
          if (client.kind === 'header') headers.Authorization = client.header!;
          if (client.kind === 'post') pairs.push(['client_id', client.id!], ['client_secret', client.secret!]);
          if (pad) pairs.push(['padding', 'p'.repeat(pad)]);
          const body = asJson && type === 'application/json' ? JSON.stringify(Object.fromEntries(pairs)) : wire(pairs, junk);
          const response = await fetch(`${idp.url}/application/o/token/`, { method: 'POST', headers, body });
          const answer = await response.json().catch(() => undefined);
          expectOAuthJson(response.status, response.headers, answer);
          if (response.status === 200) {
            expect(answer).toEqual(
              expect.objectContaining({ access_token: expect.any(String), token_type: 'Bearer', expires_in: expect.any(Number) }),
            );
            if (answer.refresh_token) real.$REFRESH = answer.refresh_token; // rotated: later runs use the new one
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  test('userinfo: random Authorization headers and bodies get the claims or a JSON invalid_token/invalid_request, never a 5xx', async () => {
    await freshTokens(); // the token property may have revoked the grant (a reused refresh token)
    const header = fc
      .oneof(
        { weight: 2, arbitrary: fc.constant('Bearer $ACCESS') },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            'bearer $ACCESS',
            'Bearer  $ACCESS',
            'Bearer $ACCESS x',
            'Bearer $ACCESSx',
            'DPoP $ACCESS',
            '$ACCESS',
            'Basic $ACCESS',
            'Bearer',
            'Bearer ',
          ),
        },
        { weight: 3, arbitrary: fc.tuple(fc.constantFrom('Bearer ', 'Basic ', ''), text()).map(([scheme, value]) => scheme + value) },
      )
      .filter(isHeaderValue);
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST'),
      header: optional(header, 8),
      body: optional(fc.oneof(fc.constant('access_token=$ACCESS'), wirePairs(fc.constantFrom('access_token', 'scope', 'x'), text()))),
      type: fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'),
    });

    await fc.assert(
      fc.asyncProperty(request, async ({ method, header: auth, body, type }) => {
        const [[, authorization], [, form]] = await fill([
          ['a', auth ?? ''],
          ['b', body ?? ''],
        ]);
        const headers: Record<string, string> = {};
        if (auth !== undefined) headers.Authorization = authorization!;
        if (body !== undefined && method === 'POST') headers['Content-Type'] = type;
        const response = await fetch(`${idp.url}/application/o/userinfo/`, { method, headers, body: method === 'POST' ? form : undefined });
        const answer = await response.json().catch(() => undefined);
        expectOAuthJson(response.status, response.headers, answer);
        if (response.status === 200) expect(answer).toEqual(expect.objectContaining({ sub: expect.stringMatching(/^[0-9a-f-]{36}$/) }));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('end-session: random hints, post-logout URIs and states get a page or a registered redirect, never a 5xx', async () => {
    await freshTokens();
    const values = new Map<string, fc.Arbitrary<string>>([
      ['id_token_hint', mostly(fc.constantFrom('$ID_TOKEN', '$CRM_ID_TOKEN', '$ID_TOKEN.x', '$ID_TOKENx'), text(), 3)],
      [
        'post_logout_redirect_uri',
        mostly(
          fc.constant(LOGGED_OUT),
          fc.oneof(
            fc.constantFrom(CALLBACK, `${LOGGED_OUT}/`, `${LOGGED_OUT}?x=1`, 'https://evil.example/', 'javascript:alert(1)'),
            fc.webUrl(),
            text(),
          ),
          2,
        ),
      ],
      ['client_id', fc.oneof(fc.constantFrom('client-wiki', 'client-crm'), text())],
      ['state', text(60)],
      ['ui_locales', text()],
      ['logout_hint', text()],
    ]);
    const valid = fc.constantFrom<Pairs>(
      [
        ['id_token_hint', '$ID_TOKEN'],
        ['post_logout_redirect_uri', LOGGED_OUT],
        ['state', 's'],
      ],
      [['client_id', 'client-wiki']],
      [],
    );
    const confirmation = fc.option(fc.record({ xsrf: optional(text()), logout: optional(text()) }), { nil: undefined });

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('wiki', 'wiki', 'crm', 'nope'),
        mostly(fc.constant('GET'), fc.constant('POST'), 4),
        parameters(valid, values),
        confirmation,
        fc.constantFrom(BROWSER_ACCEPT, '*/*', 'application/json'),
        async (slug, method, { pairs: raw, junk }, confirm, accept) => {
          const pairs = await fill(raw);
          const endpoint = `${idp.url}/application/o/${slug}/end-session/`;
          const http = new CookieClient();
          const headers = { Accept: accept };
          // POST to end-session is off in the engine (enableHttpPostMethods): a 404 page, checked like any page.
          let page =
            method === 'GET'
              ? await http.request(`${endpoint}?${wire(pairs, junk)}`, { headers })
              : await http.request(endpoint, {
                  body: wire(pairs, junk),
                  headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
                });
          const check = () => {
            if (page.status === 431 && page.url.length > HEAD_LIMIT) return;
            expect(page.status).toBeLessThan(500);
            if (page.status >= 300 && page.status < 400) {
              const to = new URL(page.headers.get('location')!, idp.url);
              if (to.origin !== idp.url) expect(`${to.origin}${to.pathname}`).toBe(LOGGED_OUT); // wiki's only post-logout URI
            } else if (page.status === 200 && page.text.includes('<title>Submitting Callback</title>')) {
              // No session in this browser: the engine posts its confirmation form by itself, to its own confirm URL.
              expect(page.headers.get('content-type')).toMatch(/^text\/html/);
              expect(new URL(formOf(page).action).href).toBe(`${idp.url}/application/o/${slug}/end-session/confirm`);
            } else if (
              accept !== BROWSER_ACCEPT &&
              page.status >= 400 &&
              page.headers.get('content-type')?.startsWith('application/json')
            ) {
              // The engine negotiates its end-session errors: JSON for a client that does not ask for HTML first.
              expect(oauthErrorProblem(JSON.parse(page.text), OAUTH_ERRORS)).toBeUndefined();
            } else {
              expect(pageProblem(page.status, page.headers.get('content-type'), page.text)).toBeUndefined();
            }
          };
          check();
          // The confirmation form, posted with its xsrf and logout fields changed or not: a page or a registered redirect again.
          if (confirm && page.status === 200 && page.text.includes('<form')) {
            const form = formOf(page);
            expect(new URL(form.action).origin).toBe(idp.url);
            const fields = {
              ...form.fields,
              ...(confirm.xsrf !== undefined ? { xsrf: confirm.xsrf } : {}),
              ...(confirm.logout !== undefined ? { logout: confirm.logout } : {}),
            };
            page = await http.request(form.action, { form: fields, headers });
            check();
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
