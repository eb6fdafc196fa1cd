/** The OpenAPI 3.1 document of /api/v3/core, /api/v3/events and /api/v3/admin, built from the schemas the API validates with. */
import { answer, json, pathParams, ref, responses, schemas, use, type Described } from './openapi-components.js';
import { operations } from './openapi-operations.js';

export { schemaQuery } from './openapi-components.js';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown>;

const statusText: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

function parameters(op: Described): object[] {
  const found: object[] = [];
  for (const [, name] of op.path.matchAll(/\{(\w+)\}/g)) {
    // {pk} and {id} name the operation's object; other names are their own kind ({source}).
    const param = pathParams[name === 'pk' || name === 'id' ? op.param! : name!]!;
    found.push({ name, in: 'path', required: true, description: param.description, schema: param.schema });
  }
  for (const [name, schema] of Object.entries(op.query?.properties ?? {})) {
    // An array parameter is repeated (`?groups=a&groups=b`): form style, exploded, the OpenAPI default for queries.
    found.push({ name, in: 'query', required: false, schema });
  }
  return found;
}

/** The answers an operation can give: success, then the errors its place in the pipeline makes possible. */
function answers(op: Described): Record<string, object> {
  const all: Record<string, object> = {};
  all[op.status] = op.returns ? answer(statusText[op.status]!, ref(op.returns)) : { description: statusText[op.status]! };
  const takesBody = op.method === 'post' || op.method === 'patch';
  // Every POST and PATCH goes through parse-json-body.ts, even without a schema of its own.
  if (takesBody) all[400] = use('InvalidBody');
  else if (op.query) all[400] = use('Invalid');
  if (op.scope) {
    all[401] = use('Unauthorized');
    all[403] = use('Forbidden');
  }
  if (op.param) all[404] = use('NotFound');
  if (op.list) all[404] = use('InvalidPage');
  if (takesBody) {
    all[413] = use('TooLarge');
    all[415] = use('UnsupportedMediaType');
  }
  if (op.scope) all[429] = use('Throttled');
  return { ...all, ...op.extra };
}

function operation(op: Described): Operation {
  const body = op.body ? schemas[op.body] : undefined;
  const params = parameters(op);
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.path.split('/')[1]],
    // With a scope: an http bearer scheme's requirement lists roles, which here are the token's scopes.
    security: op.scope ? [{ apiToken: [op.scope] }] : [],
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: { required: 'required' in body, content: json(ref(op.body!)) } } : {}),
    responses: answers(op),
  };
}

/** The document; `baseUrl` is issuer.base_url, the origin the API answers on. */
export function buildOpenApi(baseUrl: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method] = operation(op);
  return {
    openapi: '3.1.1',
    info: {
      title: 'Identity service API',
      version: '3',
      description:
        'The provisioning API (/core), the delivery log (/events) and API tokens and signing keys (/admin). Under v3 fields and endpoints are only ever added.',
    },
    servers: [{ url: `${baseUrl.replace(/\/$/, '')}/api/v3` }],
    tags: [
      { name: 'core', description: 'Users and groups.' },
      { name: 'events', description: 'Deliveries of webhooks and back-channel logouts.' },
      { name: 'admin', description: 'API tokens and signing keys (scope admin), as `idp tokens` and `idp keys`.' },
      { name: 'schema', description: 'This document.' },
    ],
    paths,
    components: {
      schemas,
      responses,
      securitySchemes: {
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (`idp tokens create --name N --scope S…`). Each operation lists the scope it needs.',
        },
      },
    },
  };
}
