/**
 * What a person and a group may be given, as JSON Schema: the provisioning API's bodies (which also describe the API
 * in OpenAPI, src/api/schemas.ts) and the admin console's forms validate with these same rules.
 */
import { EMAIL_MAX_LENGTH } from './email-address.js';

export const uuid = { type: 'string', format: 'uuid' } as const;
const attributes = { type: 'object', description: 'Free-form; first_name and last_name are used for given_name/family_name.' } as const;

/** A required text: at least one character that is not white space, on create and on update alike. */
const text = (maxLength: number, description?: string) =>
  ({ type: 'string', minLength: 1, maxLength, pattern: '\\S', ...(description ? { description } : {}) }) as const;

export const userFields = {
  username: text(150, 'Unique, case-insensitively; use the e-mail.'),
  email: {
    type: 'string',
    format: 'email',
    maxLength: EMAIL_MAX_LENGTH,
    description: 'Unique, case-insensitively; ASCII (IDN domains as xn--).',
  },
  name: text(255, 'Full display name.'),
  is_active: { type: 'boolean' },
  email_verified: {
    type: 'boolean',
    description: 'Whether the user proved they read mail at the address (ID token claim email_verified).',
  },
  attributes,
} as const;

export const userCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['username', 'email', 'name'],
  properties: {
    ...userFields,
    groups: { type: 'array', items: uuid, maxItems: 1000, description: 'Groups the user joins (create only).' },
    send_invite: {
      type: 'boolean',
      description: 'Mail the new user an invitation to choose a password (create only; as POST /users/{pk}/invite/).',
    },
  },
} as const;

export const userPatch = {
  type: 'object',
  additionalProperties: false,
  properties: userFields,
} as const;

export const groupFields = {
  name: text(150, 'Unique, case-insensitively.'),
  attributes,
} as const;

export const groupCreate = { type: 'object', additionalProperties: false, required: ['name'], properties: groupFields } as const;
export const groupPatch = { type: 'object', additionalProperties: false, properties: groupFields } as const;
