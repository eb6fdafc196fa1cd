/**
 * JSON Schemas of the provisioning API: request bodies and query strings. Kept in one place because the
 * same schemas validate requests and describe the API (OpenAPI). People's and groups' own fields are the
 * domain's (src/domain/directory-schemas.ts), which the admin console's forms share.
 */
import { uuid } from '../domain/directory-schemas.js';

export { groupCreate, groupFields, groupPatch, userCreate, userFields, userPatch } from '../domain/directory-schemas.js';

export const setPasswordBody = {
  type: 'object',
  additionalProperties: false,
  required: ['password'],
  properties: {
    password: {
      type: 'string',
      description: 'New password; length limits from passwords.min_length/max_length; must not equal the e-mail.',
    },
  },
} as const;

export const memberBody = {
  type: 'object',
  additionalProperties: false,
  required: ['pk'],
  properties: { pk: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'User pk.' } },
} as const;

// The maximum keeps offsets within what the database can count; past the last page answers 404 anyway.
const pageQuery = {
  page: { type: 'integer', minimum: 1, maximum: 2147483647, default: 1 },
  page_size: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'Default 20; values above 100 are capped at 100.' },
} as const;

/** Query strings: values arrive as strings and are coerced; unknown parameters (e.g. DRF's `ordering`) are ignored. */
export const userListQuery = {
  type: 'object',
  properties: {
    ...pageQuery,
    groups: { type: 'array', items: uuid, description: 'Members of any of these groups (repeat the parameter).' },
    email: { type: 'string', description: 'Exact e-mail, case-insensitive.' },
    search: { type: 'string', maxLength: 254, description: 'Substring of name or e-mail, case-insensitive.' },
    is_active: { type: 'boolean' },
  },
} as const;

export const groupListQuery = {
  type: 'object',
  properties: { ...pageQuery, search: { type: 'string', maxLength: 150, description: 'Substring of the name, case-insensitive.' } },
} as const;

/** Server-managed user fields: accepted and ignored in bodies, so a fetched object can be sent back. */
export const readOnlyUserFields = ['pk', 'uuid', 'last_login'] as const;
export const readOnlyGroupFields = ['pk', 'users', 'users_count'] as const;

export const deliveryListQuery = {
  type: 'object',
  properties: {
    ...pageQuery,
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    app: { type: 'string', maxLength: 63, description: 'Application slug.' },
  },
} as const;

export const auditListQuery = {
  type: 'object',
  properties: {
    ...pageQuery,
    user: { type: 'string', format: 'uuid', description: 'Events about this user (uuid).' },
    app: { type: 'string', maxLength: 63, description: 'Application slug.' },
    action: { type: 'string', maxLength: 63, pattern: '^[a-z_.]+$', description: 'e.g. sign_in.failed, user.updated.' },
    since: { type: 'string', format: 'date-time', description: 'From this time (inclusive), RFC 3339.' },
    until: { type: 'string', format: 'date-time', description: 'Up to this time (inclusive), RFC 3339.' },
  },
} as const;
