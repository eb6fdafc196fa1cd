/** The components of the OpenAPI document (openapi.ts): its schemas, shared answers and path parameters, and the shape of an operation. */
import type { ApiScope } from '../domain/api-tokens.js';
import { groupCreate, groupPatch, memberBody, setPasswordBody, userCreate, userPatch } from './schemas.js';
import {
  auditEventView,
  deliveryView,
  errorDetail,
  fieldErrors,
  groupView,
  invitation,
  paginatedList,
  pagination,
  recoveryLink,
  sourceLinkList,
  sourceLinkView,
  userPkSchema,
  userView,
  uuidSchema,
} from './response-schemas.js';
import { apiTokenCreate, apiTokenView, newApiTokenView, signingKeyRotationView, signingKeyView } from './admin-schemas.js';

/** Component schemas by name: the request schemas of schemas.ts as they are, and the answers of response-schemas.ts. */
export const views = {
  User: userView,
  Group: groupView,
  Delivery: deliveryView,
  AuditEvent: auditEventView,
  ApiToken: apiTokenView,
  SigningKey: signingKeyView,
} as const;

/** Each listed view's page: `Paginated{View}List`. */
export const pages = Object.fromEntries(
  Object.keys(views).map((name) => [`Paginated${name}List`, paginatedList({ $ref: `#/components/schemas/${name}` })]),
) as Record<`Paginated${keyof typeof views}List`, ReturnType<typeof paginatedList>>;

export const schemas = {
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
export type SchemaName = keyof typeof schemas;

export const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: object) => ({ 'application/json': { schema } });
export const answer = (description: string, schema: object, headers?: object) => ({
  description,
  content: json(schema),
  ...(headers ? { headers } : {}),
});
export const retryAfter = (required: boolean) => ({
  'Retry-After': { description: 'Seconds to wait before trying again.', required, schema: { type: 'integer', minimum: 0 } },
});

/** Error answers shared by many operations, each in the shape errors.ts renders. */
export const responses = {
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
export type ResponseName = keyof typeof responses;

export const use = (name: ResponseName) => ({ $ref: `#/components/responses/${name}` });

/** Path parameters by name, with the forms path-params.ts accepts (anything else answers 404). */
export const pathParams: Record<string, { schema: object; description: string }> = {
  user: { schema: userPkSchema, description: "The user's pk." },
  group: { schema: uuidSchema, description: "The group's pk (a UUID)." },
  delivery: { schema: uuidSchema, description: "The delivery's id." },
  token: { schema: uuidSchema, description: "The API token's id (from the token list; never its secret)." },
  source: { schema: sourceLinkView.properties.source, description: "The source's slug." },
};

export interface Described {
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
