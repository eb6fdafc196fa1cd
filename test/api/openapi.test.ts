/**
 * GET /api/v3/schema/: the OpenAPI 3.1 document is served without a token (JSON and YAML alike), is valid, names
 * every route the routers serve with the scope they enforce, and describes what the API really answers.
 */
import { randomUUID } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { load } from 'js-yaml';
import { Validator } from '@seriousme/openapi-schema-validator';
import { API_SCOPES } from '../../src/domain/api-tokens.js';
import { apiRouters } from '../../src/api/router.js';
import { schemaRouter } from '../../src/api/serve-schema.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Json = Record<string, any>;
type Answer = { status: number; headers: Headers; body: any };

const DOC_ID = 'https://openapi.test/document.json';
const pointer = (...parts: string[]) => parts.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** A copy where every object schema that lists its properties allows no others: an undocumented field fails. */
function closed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closed);
  if (!value || typeof value !== 'object') return value;
  const copy = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, closed(inner)]));
  if (copy.type === 'object' && copy.properties && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

describe('OpenAPI document at /api/v3/schema/', () => {
  let s: TestServer;
  let doc: Json;
  let ajv: Ajv2020;
  const compiled = new Map<string, ValidateFunction>();

  beforeAll(async () => {
    s = await startTestServer('pglite');
    doc = (await s.api('/api/v3/schema/', { token: null })).body;
    ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    // The document's own members are not JSON Schema keywords; registered so strict mode accepts the whole document.
    ajv.addVocabulary(['openapi', 'info', 'servers', 'tags', 'paths', 'components', 'security']);
    ajv.addSchema(closed(doc) as object, DOC_ID);
  });
  afterAll(async () => {
    await s.close();
  });

  /** The documented answer for this status (following a components/responses $ref) and its location. */
  function documented(method: string, path: string, status: number): { at: string; response: Json } {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${path} is not in the document`);
    let at = pointer('paths', path, method.toLowerCase(), 'responses', String(status));
    let response = operation.responses[String(status)];
    if (!response) throw new Error(`${method} ${path} does not document status ${status}`);
    if (response.$ref) {
      at = response.$ref.slice(1);
      response = doc.components.responses[response.$ref.split('/').pop()];
    }
    return { at, response };
  }

  /** Asserts the answer's status is documented for the operation and its body matches the documented schema. */
  function expectDocumented(method: string, path: string, answer: Answer) {
    const { at, response } = documented(method, path, answer.status);
    if (!response.content) {
      expect(answer.body).toBeUndefined();
      return;
    }
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const schemaAt = `${at}${pointer('content', 'application/json', 'schema')}`;
    let check = compiled.get(schemaAt);
    if (!check) compiled.set(schemaAt, (check = ajv.compile({ $ref: `${DOC_ID}#${schemaAt}` })));
    if (!check(answer.body))
      throw new Error(`${method} ${path} ${answer.status}: ${ajv.errorsText(check.errors)} in ${JSON.stringify(answer.body)}`);
    for (const [header, spec] of Object.entries<Json>(response.headers ?? {})) {
      if (spec.required) expect({ header, value: answer.headers.get(header) }).toEqual({ header, value: expect.any(String) });
    }
  }

  test('served without a token as JSON, and as the same document in YAML with ?format=yaml', async () => {
    const json = await fetch(`${s.url}/api/v3/schema/`);
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    const fromJson = JSON.parse(await json.text());
    expect(fromJson.openapi).toMatch(/^3\.1\./);

    const yaml = await fetch(`${s.url}/api/v3/schema/?format=yaml`);
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    const text = await yaml.text();
    expect(text).not.toMatch(/[&*]ref_\d/); // no YAML anchors for shared schema objects
    expect(load(text)).toEqual(fromJson);
    expect(await (await fetch(`${s.url}/api/v3/schema/?format=json`)).json()).toEqual(fromJson);
    expect(fromJson.servers).toEqual([{ url: `${s.settings.issuer.base_url.replace(/\/$/, '')}/api/v3` }]);
  });

  test("a bad format is a 400 field map; other methods keep the API's errors (401 without a token, else 405)", async () => {
    const bad = await s.api('/api/v3/schema/?format=xml', { token: null });
    expect(bad).toMatchObject({ status: 400, body: { format: ['Select one of: json, yaml.'] } });
    expectDocumented('GET', '/schema/', bad);
    expect(await s.api('/api/v3/schema/', { method: 'POST', token: null })).toMatchObject({
      status: 401,
      body: { detail: expect.any(String) },
    });
    const post = await s.api('/api/v3/schema/', { method: 'POST' });
    expect(post).toMatchObject({ status: 405, body: { detail: 'Method "POST" not allowed.' } });
    expect(post.headers.get('allow')).toContain('GET');
  });

  test('valid OpenAPI 3.1 for @seriousme/openapi-schema-validator, which rejects a broken copy', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();

    // The control: the validator does look (a response without its required description).
    const broken = structuredClone(doc);
    delete broken.paths['/core/users/'].get.responses['200'].description;
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  test('every component and parameter schema compiles as JSON Schema 2020-12 in strict mode (no unknown keywords)', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['User', 'Group', 'Delivery', 'Pagination', 'ErrorDetail', 'FieldErrors']));
    for (const name of names) expect(() => ajv.compile({ $ref: `${DOC_ID}#${pointer('components', 'schemas', name)}` })).not.toThrow();
    for (const [path, operations] of Object.entries<Json>(doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(operations)) {
        (operation.parameters ?? []).forEach((_: unknown, index: number) => {
          expect(() =>
            ajv.compile({ $ref: `${DOC_ID}#${pointer('paths', path, method, 'parameters', String(index), 'schema')}` }),
          ).not.toThrow();
        });
      }
    }
  });

  test('every route the API routers serve is documented, and nothing else is', () => {
    const { core, events, admin } = apiRouters(s.db.store, s.settings);
    const routed = [core, events, admin, schemaRouter(s.settings.issuer.base_url)].flatMap((router) =>
      router.stack.flatMap((layer) =>
        layer.methods
          .filter((method) => method !== 'HEAD')
          .map(
            (method) =>
              `${method} ${String(layer.path)
                .replace(/^\/api\/v3/, '')
                .replace(/:(\w+)/g, '{$1}')}`,
          ),
      ),
    );
    const inDocument = Object.entries<Json>(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routed.length).toBeGreaterThanOrEqual(19);
    expect(inDocument.sort()).toEqual(routed.sort());
  });

  test('each operation needs exactly the scope it documents (bearer), and its answers are documented', async () => {
    const user = '2147483647';
    const uuid = '00000000-0000-4000-8000-000000000000';
    for (const [path, operations] of Object.entries<Json>(doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(operations)) {
        if (!operation.security.length) continue;
        const [[scheme, scopes]] = Object.entries(operation.security[0] as Record<string, string[]>);
        expect(doc.components.securitySchemes[scheme!]).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
        expect(scopes).toHaveLength(1);
        const scope = scopes![0]!;
        const url = `/api/v3${path.replace('{pk}', path.startsWith('/core/users/') ? user : uuid).replace('{id}', uuid)}`;
        const call = async (token: string) =>
          s.api(url, { method: method.toUpperCase(), token, ...(method === 'post' || method === 'patch' ? { json: {} } : {}) });

        const denied = await call(await s.token(API_SCOPES.filter((other) => other !== scope)));
        expect({ op: `${method} ${path}`, status: denied.status, detail: denied.body?.detail }).toEqual({
          op: `${method} ${path}`,
          status: 403,
          detail: `You do not have permission to perform this action (the token lacks the ${scope} scope).`,
        });
        expectDocumented(method, path, denied);
        const allowed = await call(await s.token([scope]));
        expect([401, 403]).not.toContain(allowed.status);
        expectDocumented(method, path, allowed);
        expectDocumented(method, path, await s.api(url, { method: method.toUpperCase(), token: null }));
      }
    }
  });

  test('real answers match the documented schemas: users, groups, errors, deliveries', async () => {
    const created = await s.api('/api/v3/core/users/', {
      json: { username: 'ada@example.com', email: 'ada@example.com', name: 'Ada', attributes: { first_name: 'Ada' } },
    });
    expect(created.status).toBe(201);
    expectDocumented('POST', '/core/users/', created);
    await s.api('/api/v3/core/users/', { json: { username: 'bob@example.com', email: 'bob@example.com', name: 'Bob' } });

    const firstPage = await s.api('/api/v3/core/users/?page_size=1&search=example');
    expect(firstPage.body.pagination.next).toEqual(expect.any(String));
    expectDocumented('GET', '/core/users/', firstPage);
    expectDocumented('GET', '/core/users/', await s.api('/api/v3/core/users/?page_size=1&page=2&search=example'));
    expectDocumented('GET', '/core/users/', await s.api('/api/v3/core/users/?page=99'));
    expectDocumented('GET', '/core/users/', await s.api('/api/v3/core/users/?is_active=maybe&page=0'));

    const pk = created.body.pk as number;
    expectDocumented('GET', '/core/users/{pk}/', await s.api(`/api/v3/core/users/${pk}/`));
    const patched = await s.api(`/api/v3/core/users/${pk}/`, { method: 'PATCH', json: { name: 'Ada L.' } });
    expect(patched).toMatchObject({ status: 200, body: { name: 'Ada L.' } });
    expectDocumented('PATCH', '/core/users/{pk}/', patched);

    const invalid = await s.api('/api/v3/core/users/', { json: { email: 'nope', extra: 1 } });
    expect(invalid.status).toBe(400);
    expectDocumented('POST', '/core/users/', invalid);
    const malformed = await s.api('/api/v3/core/users/', { body: '{"name": ', headers: { 'Content-Type': 'application/json' } });
    expect(malformed).toMatchObject({ status: 400, body: { detail: expect.stringContaining('JSON') } });
    expectDocumented('POST', '/core/users/', malformed);
    const notFound = await s.api('/api/v3/core/users/999999/');
    expect(notFound).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    expectDocumented('GET', '/core/users/{pk}/', notFound);
    const anonymous = await s.api('/api/v3/core/users/', { token: null });
    expect(anonymous.status).toBe(401);
    expectDocumented('GET', '/core/users/', anonymous);

    const recovery = await s.api(`/api/v3/core/users/${pk}/recovery/`, { method: 'POST' });
    expect(recovery.status).toBe(200);
    expectDocumented('POST', '/core/users/{pk}/recovery/', recovery);

    const group = await s.api('/api/v3/core/groups/', { json: { name: 'staff' } });
    expect(group.status).toBe(201);
    expectDocumented('POST', '/core/groups/', group);
    const added = await s.api(`/api/v3/core/groups/${group.body.pk}/add_user/`, { json: { pk } });
    expect(added.status).toBe(204);
    expectDocumented('POST', '/core/groups/{pk}/add_user/', added);
    expectDocumented('GET', '/core/groups/', await s.api('/api/v3/core/groups/'));
    const member = await s.api(`/api/v3/core/users/${pk}/`);
    expect(member.body.groups).toEqual([group.body.pk]);
    expectDocumented('GET', '/core/users/{pk}/', member);

    // A delivery with one failed attempt, written as the delivery worker would.
    const eventId = randomUUID();
    await s.db.store.events.append({ id: eventId, type: 'user_updated', body: '{}' });
    const delivery = await s.db.store.events.ensureDelivery({
      event_id: eventId,
      app: 'demo',
      kind: 'webhook',
      target: 'https://rp.example.com/hook',
    });
    await s.db.store.events.recordAttempt(delivery.id, {
      attempt: 1,
      status_code: 500,
      error: 'HTTP 500',
      duration_ms: 12,
      status: 'failed',
    });
    const deliveries = await s.api('/api/v3/events/deliveries/');
    expect(deliveries.body.results).toEqual([
      expect.objectContaining({ id: delivery.id, attempt_log: [expect.objectContaining({ status_code: 500 })] }),
    ]);
    expectDocumented('GET', '/events/deliveries/', deliveries);
    expectDocumented('GET', '/events/deliveries/{id}/', await s.api(`/api/v3/events/deliveries/${delivery.id}/`));
    expectDocumented('GET', '/events/deliveries/', await s.api('/api/v3/events/deliveries/?status=lost'));
    // This test server queues nothing: 503, as documented.
    expectDocumented(
      'POST',
      '/events/deliveries/{id}/redeliver/',
      await s.api(`/api/v3/events/deliveries/${delivery.id}/redeliver/`, { method: 'POST' }),
    );
  });

  test('the checks can fail: an undocumented status or an undocumented field is refused', async () => {
    const created = await s.api('/api/v3/core/users/', { json: { username: 'cy@example.com', email: 'cy@example.com', name: 'Cy' } });
    expect(() => expectDocumented('POST', '/core/users/', { ...created, status: 418 })).toThrow(/does not document status 418/);
    expect(() => expectDocumented('POST', '/core/users/', { ...created, body: { ...created.body, secret: 'x' } })).toThrow(
      /additional properties/,
    );
    expect(() => expectDocumented('POST', '/core/users/', { ...created, body: { ...created.body, pk: 'one' } })).toThrow(/pk/);
  });
});
