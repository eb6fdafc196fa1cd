/** The OpenAPI 3.1 document of /api/v3/core, /api/v3/events and /api/v3/admin, built from the schemas the API validates with. */
import type { ApiScope } from '../domain/api-tokens.js';
import {
  auditListQuery,
  deliveryListQuery,
  groupCreate,
  groupListQuery,
  groupPatch,
  memberBody,
  setPasswordBody,
  userCreate,
  userListQuery,
  userPatch,
} from './schemas.js';
import {
  auditEventView,
  deliveryView,
  errorDetail,
  fieldErrors,
  groupView,
  paginatedList,
  pagination,
  invitation,
  recoveryLink,
  sourceLinkList,
  sourceLinkView,
  userPkSchema,
  userView,
  uuidSchema,
} from './response-schemas.js';
import { adminListQuery, apiTokenCreate, apiTokenView, newApiTokenView, signingKeyRotationView, signingKeyView } from './admin-schemas.js';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown>;

/** Component schemas by name: the request schemas of schemas.ts as they are, and the answers of response-schemas.ts. */
const views = {
  User: userView,
  Group: groupView,
  Delivery: deliveryView,
  AuditEvent: auditEventView,
  ApiToken: apiTokenView,
  SigningKey: signingKeyView,
} as const;

/** Each listed view's page: `Paginated{View}List`. */
const pages = Object.fromEntries(
  Object.keys(views).map((name) => [`Paginated${name}List`, paginatedList({ $ref: `#/components/schemas/${name}` })]),
) as Record<`Paginated${keyof typeof views}List`, ReturnType<typeof paginatedList>>;

const schemas = {
  ...views,
  ...pages,
  UserCreate: userCreate,
  UserPatch: userPatch,
  SetPassword: setPasswordBody,
  RecoveryLink: recoveryLink,
  Invitation: invitation,
  GroupCreate: groupCreate,
  GroupPatch: groupPatch,
  GroupMember: memberBody,
  Pagination: pagination,
  ApiTokenCreate: apiTokenCreate,
  NewApiToken: newApiTokenView,
  SourceLink: sourceLinkView,
  SourceLinkList: sourceLinkList,
  SigningKeyRotation: signingKeyRotationView,
  ErrorDetail: errorDetail,
  FieldErrors: fieldErrors,
} as const;
type SchemaName = keyof typeof schemas;

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const answer = (description: string, schema: object, headers?: object) => ({
  description,
  content: json(schema),
  ...(headers ? { headers } : {}),
});
const retryAfter = (required: boolean) => ({
  'Retry-After': { description: 'Seconds to wait before trying again.', required, schema: { type: 'integer', minimum: 0 } },
});

/** Error answers shared by many operations, each in the shape errors.ts renders. */
const responses = {
  Invalid: answer('Validation failed: a field map, `{"field": ["message", …]}`.', ref('FieldErrors')),
  InvalidBody: answer(
    'Validation failed (a field map; `non_field_errors` when the body is not an object), or the body is not JSON (`{"detail": "JSON parse error: …"}`).',
    { oneOf: [ref('FieldErrors'), ref('ErrorDetail')] },
  ),
  Unauthorized: answer('The token is missing, malformed, unknown, revoked or expired.', ref('ErrorDetail'), {
    'WWW-Authenticate': { description: '`Bearer realm="api"`', required: true, schema: { type: 'string' } },
  }),
  Forbidden: answer('The token lacks the scope this operation needs (named in `detail`).', ref('ErrorDetail')),
  NotFound: answer('`{"detail": "Not found."}`: no such object, or a pk of the wrong form.', ref('ErrorDetail')),
  InvalidPage: answer('`{"detail": "Invalid page."}`: a page past the last.', ref('ErrorDetail')),
  TooLarge: answer('The body is over `api.max_body_bytes`.', ref('ErrorDetail')),
  UnsupportedMediaType: answer('The body is not `application/json`.', ref('ErrorDetail')),
  Throttled: answer('The token made `rate_limits.api_per_minute` requests this minute.', ref('ErrorDetail'), retryAfter(true)),
} as const;
type ResponseName = keyof typeof responses;

const use = (name: ResponseName) => ({ $ref: `#/components/responses/${name}` });

/** Path parameters by name, with the forms path-params.ts accepts (anything else answers 404). */
const pathParams: Record<string, { schema: object; description: string }> = {
  user: { schema: userPkSchema, description: "The user's pk." },
  group: { schema: uuidSchema, description: "The group's pk (a UUID)." },
  delivery: { schema: uuidSchema, description: "The delivery's id." },
  token: { schema: uuidSchema, description: "The API token's id (from the token list; never its secret)." },
  source: { schema: sourceLinkView.properties.source, description: "The source's slug." },
};

interface Described {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** As routed, below /api/v3, with `{name}` for a parameter. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** The scope requireScope checks in the router; null: no token needed. */
  scope: ApiScope | null;
  /** Which kind of object the path parameter names (pathParams). */
  param?: keyof typeof pathParams;
  /** The ajv schema of the query string, as validateQuery uses it. */
  query?: { properties: Record<string, object> };
  body?: SchemaName;
  status: number;
  /** The success body; none for 204. */
  returns?: SchemaName;
  /** A list: a page past the last answers 404. */
  list?: boolean;
  /** Operation-specific answers besides the ones derived below. */
  extra?: Record<string, object>;
}

/** The query string of GET /api/v3/schema/ (serve-schema.ts validates with it). */
export const schemaQuery = {
  type: 'object',
  properties: { format: { type: 'string', enum: ['json', 'yaml'], default: 'json' } },
} as const;

const readOnlyNote =
  'Read-only fields (pk, uuid, last_login for users; pk, users, users_count for groups) are accepted and ignored, so an object fetched with GET can be sent back.';

/** Every operation the routers serve (users.ts, groups.ts, deliveries.ts, audit.ts, admin-tokens.ts, admin-keys.ts, serve-schema.ts). */
const operations: Described[] = [
  {
    method: 'get',
    path: '/core/users/',
    operationId: 'core_users_list',
    summary: 'List users, ordered by pk',
    scope: 'users:read',
    query: userListQuery,
    status: 200,
    returns: 'PaginatedUserList',
    list: true,
  },
  {
    method: 'post',
    path: '/core/users/',
    operationId: 'core_users_create',
    summary: 'Create a user',
    description: `A non-empty \`groups\` (groups to join) needs the groups:write scope too; without it the answer is 403 and nothing is created. ${readOnlyNote}`,
    scope: 'users:write',
    body: 'UserCreate',
    status: 201,
    returns: 'User',
  },
  {
    method: 'get',
    path: '/core/users/{pk}/',
    operationId: 'core_users_retrieve',
    summary: 'Get a user',
    scope: 'users:read',
    param: 'user',
    status: 200,
    returns: 'User',
  },
  {
    method: 'patch',
    path: '/core/users/{pk}/',
    operationId: 'core_users_partial_update',
    summary: "Change some of a user's fields",
    description: `Changing the e-mail clears email_verified unless the same PATCH sets it. \`groups\` answers 400: use the group's add_user/remove_user. ${readOnlyNote}`,
    scope: 'users:write',
    param: 'user',
    body: 'UserPatch',
    status: 200,
    returns: 'User',
  },
  {
    method: 'delete',
    path: '/core/users/{pk}/',
    operationId: 'core_users_destroy',
    summary: 'Delete a user',
    scope: 'users:write',
    param: 'user',
    status: 204,
  },
  {
    method: 'post',
    path: '/core/users/{pk}/set_password/',
    operationId: 'core_users_set_password_create',
    summary: "Set a user's password",
    description:
      'Length limits from passwords.min_length/max_length; the password must not equal the e-mail (400 on `password`). Ends every session, grant and token of the user (backchannel logouts) and mails them a notice, in one transaction.',
    scope: 'users:write',
    param: 'user',
    body: 'SetPassword',
    status: 204,
    extra: { 503: answer('The notice cannot be queued (the mail queue is down): nothing changed.', ref('ErrorDetail'), retryAfter(true)) },
  },
  {
    method: 'post',
    path: '/core/users/{pk}/recovery/',
    operationId: 'core_users_recovery_create',
    summary: 'Make a one-time password recovery link',
    description: 'The link is valid 24 hours; setting a password there also marks the e-mail verified. No body.',
    scope: 'users:write',
    param: 'user',
    status: 200,
    returns: 'RecoveryLink',
  },
  {
    method: 'post',
    path: '/core/users/{pk}/invite/',
    operationId: 'core_users_invite_create',
    summary: 'Mail the user an invitation to choose a password',
    description:
      'A one-time link to /if/invitation/{token}/, valid invitations.ttl_seconds (7 days by default); a new invitation withdraws the one before. Choosing a password there marks the e-mail verified. No body. A deactivated user answers 400 on `is_active`.',
    scope: 'users:write',
    param: 'user',
    status: 200,
    returns: 'Invitation',
    extra: {
      400: use('InvalidBody'),
      503: answer('The invitation cannot be queued (the mail queue is down): nothing changed.', ref('ErrorDetail'), retryAfter(true)),
    },
  },
  {
    method: 'delete',
    path: '/core/users/{pk}/mfa/',
    operationId: 'core_users_mfa_destroy',
    summary: "Remove a user's second factor",
    description:
      'Removes the TOTP secret, the recovery codes and the passkeys (lost device); the next sign-in enrols again where MFA is required. When there was something to remove, ends every session, grant and token of the user (backchannel logouts) and mails them a notice, in one transaction.',
    scope: 'users:write',
    param: 'user',
    status: 204,
    extra: { 503: answer('The notice cannot be queued (the mail queue is down): nothing changed.', ref('ErrorDetail'), retryAfter(true)) },
  },
  {
    method: 'get',
    path: '/core/users/{pk}/sources/',
    operationId: 'core_users_sources_list',
    summary: "List a user's links to upstream identity providers",
    scope: 'users:read',
    param: 'user',
    status: 200,
    returns: 'SourceLinkList',
  },
  {
    method: 'delete',
    path: '/core/users/{pk}/sources/{source}/',
    operationId: 'core_users_sources_destroy',
    summary: "Remove a user's link to an upstream identity provider",
    description:
      'The person then comes through that source as a stranger to this account: linking it again asks for its password (docs/federation.md). Audited as source.unlinked. 404 when the user has no link to the source.',
    scope: 'users:write',
    param: 'user',
    status: 204,
  },
  {
    method: 'get',
    path: '/core/groups/',
    operationId: 'core_groups_list',
    summary: 'List groups, ordered by name',
    scope: 'groups:read',
    query: groupListQuery,
    status: 200,
    returns: 'PaginatedGroupList',
    list: true,
  },
  {
    method: 'post',
    path: '/core/groups/',
    operationId: 'core_groups_create',
    summary: 'Create a group',
    description: readOnlyNote,
    scope: 'groups:write',
    body: 'GroupCreate',
    status: 201,
    returns: 'Group',
  },
  {
    method: 'get',
    path: '/core/groups/{pk}/',
    operationId: 'core_groups_retrieve',
    summary: 'Get a group',
    scope: 'groups:read',
    param: 'group',
    status: 200,
    returns: 'Group',
  },
  {
    method: 'patch',
    path: '/core/groups/{pk}/',
    operationId: 'core_groups_partial_update',
    summary: 'Rename a group or replace its attributes',
    description: readOnlyNote,
    scope: 'groups:write',
    param: 'group',
    body: 'GroupPatch',
    status: 200,
    returns: 'Group',
  },
  {
    method: 'delete',
    path: '/core/groups/{pk}/',
    operationId: 'core_groups_destroy',
    summary: 'Delete a group (its memberships go with it)',
    scope: 'groups:write',
    param: 'group',
    status: 204,
  },
  {
    method: 'post',
    path: '/core/groups/{pk}/add_user/',
    operationId: 'core_groups_add_user_create',
    summary: 'Add a user to a group',
    description: 'Adding a member twice is not an error. An unknown user or group answers 404.',
    scope: 'groups:write',
    param: 'group',
    body: 'GroupMember',
    status: 204,
  },
  {
    method: 'post',
    path: '/core/groups/{pk}/remove_user/',
    operationId: 'core_groups_remove_user_create',
    summary: 'Remove a user from a group',
    description: 'Removing a non-member is not an error. An unknown user or group answers 404.',
    scope: 'groups:write',
    param: 'group',
    body: 'GroupMember',
    status: 204,
  },
  {
    method: 'get',
    path: '/events/deliveries/',
    operationId: 'events_deliveries_list',
    summary: 'List webhook and back-channel logout deliveries, newest first',
    scope: 'events:read',
    query: deliveryListQuery,
    status: 200,
    returns: 'PaginatedDeliveryList',
    list: true,
  },
  {
    method: 'get',
    path: '/events/deliveries/{id}/',
    operationId: 'events_deliveries_retrieve',
    summary: 'Get a delivery with its attempts',
    scope: 'events:read',
    param: 'delivery',
    status: 200,
    returns: 'Delivery',
  },
  {
    method: 'post',
    path: '/events/deliveries/{id}/redeliver/',
    operationId: 'events_deliveries_redeliver_create',
    summary: 'Queue a delivery again',
    description: 'Reopens the delivery (status pending) for a fresh round of attempts. No body.',
    scope: 'events:write',
    param: 'delivery',
    status: 202,
    returns: 'Delivery',
    // Retry-After only when the queue is down, not when this process has no queue at all.
    extra: {
      503: answer(
        'The delivery queue cannot be reached (or this process has none); the delivery keeps its state.',
        ref('ErrorDetail'),
        retryAfter(false),
      ),
    },
  },
  {
    method: 'get',
    path: '/events/audit/',
    operationId: 'events_audit_list',
    summary: 'The audit trail, newest first',
    description:
      'Sign-ins, second factors, passwords, logouts, revoked tokens and every provisioning change, with who did it and from where. Kept audit.retention_days.',
    scope: 'audit:read',
    query: auditListQuery,
    status: 200,
    returns: 'PaginatedAuditEventList',
    list: true,
  },
  {
    method: 'get',
    path: '/admin/tokens/',
    operationId: 'admin_tokens_list',
    summary: 'List API tokens, oldest first (never their secrets)',
    description: 'Revoked and expired tokens are listed too, with revoked_at and expires_at.',
    scope: 'admin',
    query: adminListQuery,
    status: 200,
    returns: 'PaginatedApiTokenList',
    list: true,
  },
  {
    method: 'post',
    path: '/admin/tokens/',
    operationId: 'admin_tokens_create',
    summary: 'Create an API token; its secret is in this answer only',
    description: "Only the secret's SHA-256 is stored: a lost token cannot be shown again. An empty `scopes` answers 400.",
    scope: 'admin',
    body: 'ApiTokenCreate',
    status: 201,
    returns: 'NewApiToken',
  },
  {
    method: 'delete',
    path: '/admin/tokens/{id}/',
    operationId: 'admin_tokens_destroy',
    summary: 'Revoke an API token at once',
    description: 'A token already revoked or expired answers 404, like an unknown one.',
    scope: 'admin',
    param: 'token',
    status: 204,
  },
  {
    method: 'get',
    path: '/admin/keys/',
    operationId: 'admin_keys_list',
    summary: 'List ID-token signing keys, active first, with their algorithm (never private material)',
    scope: 'admin',
    query: adminListQuery,
    status: 200,
    returns: 'PaginatedSigningKeyList',
    list: true,
  },
  {
    method: 'post',
    path: '/admin/keys/rotate/',
    operationId: 'admin_keys_rotate_create',
    summary: 'Make a new signing key active for every algorithm in use; the previous ones are retired but stay published',
    description:
      'One new key per algorithm (RS256, and ES256 and EdDSA once an application signs with them), stored at once in one transaction; running processes sign with them (and publish them in the JWKS) when they next load the stored keys (`keys.reload_seconds`), as after `idp keys rotate`. The answer is the new RS256 key, with every new key under `keys`. No body.',
    scope: 'admin',
    status: 201,
    returns: 'SigningKeyRotation',
  },
  {
    method: 'get',
    path: '/schema/',
    operationId: 'schema_retrieve',
    summary: 'This document',
    description: 'JSON by default; YAML with `?format=yaml`. No token needed.',
    scope: null,
    query: schemaQuery,
    status: 200,
    extra: {
      200: {
        description: 'The OpenAPI document.',
        content: { 'application/json': { schema: { type: 'object' } }, 'application/yaml': { schema: { type: 'object' } } },
      },
    },
  },
];

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
