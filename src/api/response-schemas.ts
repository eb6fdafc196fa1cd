/**
 * JSON Schemas of what the API answers (objects, lists, errors), for the OpenAPI document. Field rules come from
 * the request schemas in schemas.ts, so what is accepted and what is answered cannot drift apart.
 */
import { deliveryListQuery, groupFields, memberBody, userCreate, userFields } from './schemas.js';

/** A bare UUID, as validated on input (ajv's uuid format is replaced by ours in validate.ts). */
export const uuidSchema = userCreate.properties.groups.items;
/** A user's pk: the integer range path-params.ts accepts, which is the one memberBody validates. */
export const userPkSchema = memberBody.properties.pk;

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullable = <T extends { type: string }>(schema: T) => ({ ...schema, type: [schema.type, 'null'] });

export const userView = {
  type: 'object',
  required: ['pk', 'uuid', 'username', 'email', 'name', 'is_active', 'email_verified', 'last_login', 'attributes', 'groups'],
  properties: {
    pk: { ...userPkSchema, readOnly: true },
    uuid: { ...uuidSchema, readOnly: true, description: 'The OIDC subject (sub).' },
    ...userFields,
    last_login: { ...nullable(timestamp), readOnly: true, description: 'UTC; null until the first sign-in.' },
    groups: { type: 'array', items: uuidSchema, readOnly: true, description: 'The groups the user is a member of.' },
  },
} as const;

export const groupView = {
  type: 'object',
  required: ['pk', 'name', 'users', 'users_count', 'attributes'],
  properties: {
    pk: { ...uuidSchema, readOnly: true },
    ...groupFields,
    users: { type: 'array', items: userPkSchema, readOnly: true, description: 'Member pks, ascending.' },
    users_count: { type: 'integer', minimum: 0, readOnly: true },
  },
} as const;

const attempt = {
  type: 'object',
  required: ['attempt', 'status_code', 'error', 'duration_ms', 'at'],
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    status_code: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when no answer came." },
    error: { type: ['string', 'null'] },
    duration_ms: { type: 'integer', minimum: 0 },
    at: timestamp,
  },
} as const;

export const deliveryView = {
  type: 'object',
  required: [
    'id',
    'event_id',
    'event_type',
    'app',
    'kind',
    'target',
    'status',
    'attempts',
    'last_status_code',
    'last_error',
    'created_at',
    'updated_at',
    'attempt_log',
  ],
  properties: {
    id: uuidSchema,
    event_id: uuidSchema,
    event_type: { type: ['string', 'null'], description: 'e.g. user_updated; null once the event is purged.' },
    app: deliveryListQuery.properties.app,
    kind: { type: 'string', enum: ['webhook', 'backchannel', 'scim'] },
    target: { type: 'string', description: 'The URL delivered to.' },
    status: deliveryListQuery.properties.status,
    attempts: { type: 'integer', minimum: 0 },
    last_status_code: attempt.properties.status_code,
    last_error: attempt.properties.error,
    created_at: timestamp,
    updated_at: timestamp,
    attempt_log: { type: 'array', items: attempt, description: 'Every attempt, oldest first.' },
  },
} as const;

export const auditEventView = {
  type: 'object',
  required: ['id', 'at', 'action', 'actor', 'user', 'app', 'ip', 'user_agent', 'details'],
  properties: {
    id: { type: 'string', description: 'Increasing with time.' },
    at: timestamp,
    action: {
      type: 'string',
      description:
        'e.g. sign_in.succeeded, sign_in.failed, user.updated, group.member_added, password.reset, mfa.enrolled, logout, token.revoked.',
    },
    actor: {
      type: 'object',
      required: ['type', 'id'],
      properties: {
        type: { type: 'string', enum: ['user', 'api_token', 'client', 'system', 'anonymous'] },
        id: { type: ['string', 'null'], description: 'The user uuid, API token id or client_id.' },
      },
    },
    user: { type: ['string', 'null'], description: 'The uuid of the user the event is about.' },
    app: { type: ['string', 'null'], description: 'Application slug.' },
    ip: { type: ['string', 'null'] },
    user_agent: { type: ['string', 'null'] },
    details: { type: 'object', description: 'What changed, by field name (never a value that is a secret).' },
  },
} as const;

export const recoveryLink = {
  type: 'object',
  required: ['link'],
  properties: { link: { type: 'string', format: 'uri', description: 'One-time, valid 24 hours; the user sets a password there.' } },
} as const;

export const invitation = {
  type: 'object',
  required: ['sent_to', 'expires_at'],
  properties: {
    sent_to: { type: 'string', description: "The address the invitation was mailed to (the user's e-mail)." },
    expires_at: { type: 'string', format: 'date-time', description: 'Until when the link works (invitations.ttl_seconds).' },
  },
} as const;

/** The page-number pagination of pagination.ts; `results` is given per list. */
export const pagination = {
  type: 'object',
  required: ['count', 'next', 'previous', 'current', 'total_pages', 'start_index', 'end_index'],
  properties: {
    count: { type: 'integer', minimum: 0, description: 'Matching objects on all pages.' },
    next: { type: ['string', 'null'], format: 'uri', description: 'Absolute, from issuer.base_url; keeps the other query parameters.' },
    previous: { type: ['string', 'null'], format: 'uri' },
    current: { type: 'integer', minimum: 1 },
    total_pages: { type: 'integer', minimum: 1 },
    start_index: { type: 'integer', minimum: 0, description: '1-based; 0 when there are no results.' },
    end_index: { type: 'integer', minimum: 0 },
  },
} as const;

export const paginatedList = (items: object) => ({
  type: 'object',
  required: ['pagination', 'results'],
  properties: { pagination: { $ref: '#/components/schemas/Pagination' }, results: { type: 'array', items } },
});

/** `{"detail": "..."}`: every error that is not about particular fields (errors.ts `detail`). */
export const errorDetail = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string' } },
} as const;

/** `{"field": ["message", ...]}`: validation errors (errors.ts `fieldErrors`); `non_field_errors` for the body as a whole. */
export const fieldErrors = {
  type: 'object',
  minProperties: 1,
  additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
} as const;

/** A user's link to an upstream identity provider (docs/federation.md). */
export const sourceLinkView = {
  type: 'object',
  required: ['source', 'subject', 'created_at', 'last_used_at'],
  properties: {
    source: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$', readOnly: true, description: "The source's slug (configuration)." },
    subject: { type: 'string', readOnly: true, description: 'The identifier the upstream gives the person (its sub).' },
    created_at: { ...timestamp, readOnly: true },
    last_used_at: { ...nullable(timestamp), readOnly: true, description: 'UTC; the last sign-in through the link, null before one.' },
  },
} as const;

export const sourceLinkList = {
  type: 'object',
  required: ['results'],
  properties: { results: { type: 'array', items: { $ref: '#/components/schemas/SourceLink' } } },
} as const;
