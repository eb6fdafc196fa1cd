/**
 * Input PostgreSQL or the parsers cannot take — NUL bytes, lone surrogates, prototype-named keys, huge
 * numbers, corrupt compressed bodies, absurdly deep JSON — gets its family's 400 and changes nothing: an OAuth
 * error (redirected or JSON), the API's field map, or a readable page. Never a 500.
 */
import { gzipSync } from 'node:zlib';
import { engines } from '../helpers/database.js';
import { startOidcServer, PASSWORD, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, formOf, httpSignIn, pkceRequest, redeemCode, type HttpResponse } from '../helpers/http-client.js';

describe.each(engines)('malformed input (%s)', (engine) => {
  let idp: OidcTestServer;
  let token: string;
  const callback = 'http://127.0.0.1:1/callback';

  beforeAll(async () => {
    idp = await startOidcServer(engine, callback, [{ slug: 'wiki' }]);
    token = await idp.apiToken();
  });
  afterAll(async () => idp?.close());

  const api = async (path: string, init: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {}) => {
    const response = await fetch(`${idp.url}/api/v3/core${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${token}`,
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...init.headers,
      },
      body: init.body as BodyInit | undefined,
    });
    return { status: response.status, body: await response.json() };
  };
  const userCount = async () => (await api('/users/?page_size=1')).body.pagination.count as number;

  describe('authorization request', () => {
    test('a parameter the engine does not use (claims, unknown ones) is dropped, NUL or not', async () => {
      const request = await pkceRequest(idp.apps.wiki!, idp.url, { claims: 'a\u0000b', unknown: 'x\u0000' });
      const response = await fetch(request.url, { redirect: 'manual' });
      expect(response.status).toBe(303);
      expect(new URL(response.headers.get('location')!, idp.url).pathname).toMatch(/^\/if\/flow\/wiki\//);
    });

    test.each(['state', 'nonce', 'login_hint', 'ui_locales', 'acr_values', 'max_age', 'prompt', 'code_challenge'])(
      '%s with NUL: invalid_request at the application',
      async (param) => {
        const request = await pkceRequest(idp.apps.wiki!, idp.url, { [param]: 'a\u0000b' });
        const response = await fetch(request.url, { redirect: 'manual' });
        expect(response.status).toBe(303);
        const location = new URL(response.headers.get('location')!);
        expect(location.href.startsWith(callback)).toBe(true);
        expect(location.searchParams.get('error')).toBe('invalid_request');
      },
    );

    test.each(['client_id', 'redirect_uri'])('%s with NUL: a readable 400 page, no redirect', async (param) => {
      const request = await pkceRequest(idp.apps.wiki!, idp.url);
      request.url.searchParams.set(param, `${request.url.searchParams.get(param)}\u0000`);
      const response = await fetch(request.url, { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('text/html');
    });
  });

  describe('token endpoint', () => {
    const post = async (form: Record<string, string>, headers: Record<string, string> = {}, body?: Buffer) => {
      const response = await fetch(`${idp.url}/application/o/token/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: (body ?? new URLSearchParams(form).toString()) as BodyInit,
      });
      return { status: response.status, body: await response.json() };
    };
    const app = () => idp.apps.wiki!;

    test.each([
      [
        'code',
        { grant_type: 'authorization_code', code: 'abc\u0000', code_verifier: 'v'.repeat(43), redirect_uri: callback },
        'invalid_grant',
      ],
      ['refresh_token', { grant_type: 'refresh_token', refresh_token: 'abc\u0000' }, 'invalid_grant'],
      [
        'code_verifier',
        { grant_type: 'authorization_code', code: 'abc', code_verifier: 'v\u0000'.repeat(22), redirect_uri: callback },
        undefined,
      ],
      ['grant_type', { grant_type: 'refresh\u0000' }, undefined],
    ])('%s with NUL: a 400 OAuth error', async (_name, form, error) => {
      const answer = await post({ client_id: app().client_id, client_secret: app().client_secret, ...form });
      expect(answer.status).toBe(400);
      if (error) expect(answer.body.error).toBe(error);
      expect(answer.body.error).toEqual(expect.any(String));
    });

    test('client_id or client_secret with NUL: invalid_client', async () => {
      expect((await post({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'a\u0000', client_secret: 'b' })).body.error).toBe(
        'invalid_client',
      );
      expect(
        (await post({ grant_type: 'refresh_token', refresh_token: 'x', client_id: app().client_id, client_secret: 'b\u0000' })).body.error,
      ).toBe('invalid_client');
    });

    test('a corrupt gzip body: 400 invalid_request', async () => {
      const answer = await post({}, { 'Content-Encoding': 'gzip' }, Buffer.from('not gzip at all'));
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_request');
    });
  });

  describe('sign-in pages', () => {
    async function emailPage(http: CookieClient): Promise<HttpResponse> {
      const request = await pkceRequest(idp.apps.wiki!, idp.url);
      const page = await http.follow(await http.request(request.url.href));
      if (page instanceof URL) throw new Error('no page');
      return page;
    }

    test.each([
      ['email', { email: 'a\u0000@example.com' }],
      ['password', { email: 'someone@example.com', password: 'pass\u0000word' }],
    ])('the %s field with NUL: a readable 400 page', async (_name, fields) => {
      const http = new CookieClient();
      const page = await emailPage(http);
      const form = formOf(page);
      const action = 'password' in fields ? form.action.replace(/email$/, 'password') : form.action;
      const answer = await http.request(action, { form: { ...form.fields, ...fields } });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toContain('text/html');
      expect(answer.text).toContain('role="alert"');
    });

    test('a corrupt deflate form body: a readable 400 page', async () => {
      const http = new CookieClient();
      const form = formOf(await emailPage(http));
      const answer = await http.request(form.action, {
        body: 'garbage',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'deflate' },
      });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toContain('text/html');
    });

    test('a user can still sign in after all of the above', async () => {
      const user = await idp.user();
      const signIn = await httpSignIn(new CookieClient(), idp.apps.wiki!, idp.url, user.email, PASSWORD);
      expect((await redeemCode(idp.apps.wiki!, idp.url, signIn)).status).toBe(200);
    });
  });

  describe('provisioning API', () => {
    test('an unknown query parameter with NUL is ignored like any unknown parameter', async () => {
      expect((await api('/users/?ordering=a%00b')).status).toBe(200);
    });

    test.each(['search', 'email'])('?%s= with NUL: 400 naming the field', async (param) => {
      const answer = await api(`/users/?${param}=a%00b`);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ [param]: ['Null characters are not allowed.'] });
    });

    test('groups ?search= with NUL: 400 naming the field', async () => {
      expect(await api('/groups/?search=%00')).toEqual({ status: 400, body: { search: ['Null characters are not allowed.'] } });
    });

    test.each([
      ['name', { username: 'nul@example.com', email: 'nul@example.com', name: 'a\u0000b' }],
      ['attributes', { username: 'nul2@example.com', email: 'nul2@example.com', name: 'x', attributes: { nested: { deeper: 'a\u0000' } } }],
      ['username', { username: '\ud800', email: 'nul3@example.com', name: 'x' }],
      ['attributes', { username: 'nul4@example.com', email: 'nul4@example.com', name: 'x', attributes: { 'key\u0000': 1 } }],
    ])('a body with NUL or a lone surrogate in %s: 400 naming it, nothing written', async (field, body) => {
      const before = await userCount();
      const answer = await api('/users/', { body: JSON.stringify(body) });
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body)).toEqual([field]);
      expect(await userCount()).toBe(before);
    });

    test('the key __proto__: 400, the body is refused by the JSON parser', async () => {
      const answer = await api('/users/', {
        body: '{"username": "p@example.com", "email": "p@example.com", "name": "P", "__proto__": {"is_active": false}}',
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ detail: expect.any(String) });
    });

    test.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])('the key %s: 400 "Unknown field."', async (key) => {
      const answer = await api('/users/', { body: `{"username": "p@example.com", "email": "p@example.com", "name": "P", "${key}": 1}` });
      expect(answer).toEqual({ status: 400, body: { [key]: ['Unknown field.'] } });
      const patch = await api('/groups/', { body: `{"${key}": "x"}` });
      expect(patch.status).toBe(400);
      expect(patch.body[key]).toEqual(['Unknown field.']);
    });

    test.each(['1e300', '99999999999999999999', '1.5', '-1', 'Infinity', '0x10', 'NaN', ''])('page=%s: 400 naming page', async (page) => {
      const answer = await api(`/users/?page=${page}`);
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body)).toEqual(['page']);
    });

    test('page_size=1e300: 400 naming page_size', async () => {
      const answer = await api('/users/?page_size=1e300');
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body)).toEqual(['page_size']);
    });

    test.each(['gzip', 'deflate', 'br'])('a corrupt %s body: 400 with detail, nothing written', async (encoding) => {
      const before = await userCount();
      const answer = await api('/users/', { body: Buffer.from('definitely not compressed'), headers: { 'Content-Encoding': encoding } });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ detail: expect.any(String) });
      expect(await userCount()).toBe(before);
    });

    test('a valid gzip body is accepted', async () => {
      const answer = await api('/groups/', { body: gzipSync(JSON.stringify({ name: 'zipped' })), headers: { 'Content-Encoding': 'gzip' } });
      expect(answer.status).toBe(201);
    });

    test('5,000-deep JSON: 400 naming the field, nothing written', async () => {
      const before = await userCount();
      const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
      const answer = await api('/users/', {
        body: `{"username": "deep@example.com", "email": "deep@example.com", "name": "D", "attributes": ${deep}}`,
      });
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body)).toEqual(['attributes']);
      expect(await userCount()).toBe(before);
      const top = await api('/groups/', { body: '['.repeat(5000) + ']'.repeat(5000) });
      expect(top.status).toBe(400);
    });
  });
});
