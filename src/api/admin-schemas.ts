/**
 * JSON Schemas of the admin API (/api/v3/admin): the token-create body and list query it validates with, and
 * the token and signing-key objects it answers, for the OpenAPI document.
 */
import { API_SCOPES } from '../domain/api-tokens.js';
import { SIGNING_ALGS } from '../settings/signing-algorithms.js';
import { groupListQuery } from './schemas.js';
import { uuidSchema } from './response-schemas.js';

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;

/** Lists take the paging parameters of every other list (the same schema objects, so the rules cannot drift). */
export const adminListQuery = {
  type: 'object',
  properties: { page: groupListQuery.properties.page, page_size: groupListQuery.properties.page_size },
} as const;

export const apiTokenCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'scopes'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 150, pattern: '\\S', description: 'What the token is for.' },
    // An empty list passes the schema and is refused by the domain ("Give at least one scope."), as on the CLI.
    scopes: { type: 'array', items: { type: 'string', enum: [...API_SCOPES] }, description: 'One or more scopes; duplicates are dropped.' },
    // The cap keeps the expiry a valid date; a century is longer than any credential should live.
    expires_in_days: { type: 'integer', minimum: 1, maximum: 36500, description: 'Expire after this many days; never when omitted.' },
  },
} as const;

export const apiTokenView = {
  type: 'object',
  required: ['id', 'name', 'scopes', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'],
  properties: {
    id: uuidSchema,
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string' } },
    created_at: timestamp,
    last_used_at: { ...nullableTimestamp, description: 'Recorded at most once a minute; null until first used.' },
    expires_at: { ...nullableTimestamp, description: 'Null: never expires.' },
    revoked_at: { ...nullableTimestamp, description: 'Null: not revoked.' },
  },
} as const;

/** The answer to a create: the token's fields and its secret, shown this once (only its SHA-256 is stored). */
export const newApiTokenView = {
  type: 'object',
  required: [...apiTokenView.required, 'token'],
  properties: {
    ...apiTokenView.properties,
    token: { type: 'string', description: 'The secret: send it as `Authorization: Bearer <token>`. Not shown again.' },
  },
} as const;

export const signingKeyView = {
  type: 'object',
  required: ['kid', 'alg', 'state', 'created_at', 'retired_at'],
  properties: {
    kid: { type: 'string', description: "Key id, as in the applications' JWKS." },
    alg: {
      type: 'string',
      enum: [...SIGNING_ALGS],
      description: 'The algorithm it signs with: ID tokens of the applications whose id_token_signed_response_alg names it.',
    },
    state: {
      type: 'string',
      enum: ['active', 'retired'],
      description: 'Each algorithm has one active key (it signs); retired keys stay published.',
    },
    created_at: timestamp,
    retired_at: nullableTimestamp,
  },
} as const;

/** The answer to a rotation: the new RS256 key, as the answer was before keys had algorithms, and every new key. */
export const signingKeyRotationView = {
  type: 'object',
  required: [...signingKeyView.required, 'keys'],
  properties: {
    ...signingKeyView.properties,
    keys: {
      type: 'array',
      items: signingKeyView,
      description: 'The new active key of every algorithm rotated (RS256 first, then each other algorithm in use).',
    },
  },
} as const;
