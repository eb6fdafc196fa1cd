/**
 * A user as a SCIM resource and back. What is kept where:
 *   id = uuid, userName = username, displayName = name, active = is_active, externalId = external_id;
 *   emails = the one e-mail (shown as the primary work address);
 *   name.givenName/familyName = attributes.first_name/last_name (the given_name/family_name claims), and the other
 *   attributes with a key in USER_ATTRIBUTE_KEYS (the enterprise extension among them) under that key.
 * Other attribute keys (set through the API, e.g. avatar) are the operator's: SCIM leaves them alone.
 */
import type { GroupRef, UserRow } from '../store/contract.js';
import type { CreateUser, UpdateUser } from '../domain/users.js';
import { isEmailAddress } from '../domain/email-address.js';
import { booleanOf, isObject, type Resource } from './conform.js';
import { invalidValue } from './errors.js';
import { CORE_USER, ENTERPRISE_USER } from './schemas.js';
import { scimBase, withMeta } from './meta.js';

/** Simple SCIM attributes kept in the user's attributes, by path (extension ones after their URN). */
export const USER_ATTRIBUTE_KEYS: Record<string, string> = {
  'name.givenName': 'first_name',
  'name.familyName': 'last_name',
  'name.formatted': 'formatted_name',
  nickName: 'nickname',
  profileUrl: 'profile_url',
  title: 'title',
  userType: 'user_type',
  preferredLanguage: 'preferred_language',
  locale: 'locale',
  timezone: 'timezone',
  [`${ENTERPRISE_USER}:employeeNumber`]: 'employee_number',
  [`${ENTERPRISE_USER}:costCenter`]: 'cost_center',
  [`${ENTERPRISE_USER}:organization`]: 'organization',
  [`${ENTERPRISE_USER}:division`]: 'division',
  [`${ENTERPRISE_USER}:department`]: 'department',
  [`${ENTERPRISE_USER}:manager.value`]: 'manager',
  [`${ENTERPRISE_USER}:manager`]: 'manager',
};

/** Multi-valued complex attributes kept whole under an attribute key. */
const LIST_KEYS: Record<string, string> = { phoneNumbers: 'phone_numbers', addresses: 'addresses' };

/** Every attribute key SCIM writes: on PUT and PATCH, what the resource no longer holds is removed from these. */
const MANAGED_KEYS = new Set([...Object.values(USER_ATTRIBUTE_KEYS), ...Object.values(LIST_KEYS)]);

const MAX_USERNAME = 150;
const MAX_NAME = 255;

/** The value at a path of USER_ATTRIBUTE_KEYS in a resource: `a`, `a.b`, `urn:…:a`, `urn:…:a.b`. */
function at(resource: Resource, path: string): unknown {
  const colon = path.lastIndexOf(':');
  const container = colon === -1 ? resource : (resource[path.slice(0, colon)] as Resource | undefined);
  const [attribute, sub] = path.slice(colon + 1).split('.');
  const value = container?.[attribute!];
  return sub ? (isObject(value) ? value[sub] : undefined) : value;
}

function put(resource: Resource, path: string, value: unknown): void {
  const colon = path.lastIndexOf(':');
  let container = resource;
  if (colon !== -1) container = (resource[path.slice(0, colon)] ??= {}) as Resource;
  const [attribute, sub] = path.slice(colon + 1).split('.');
  if (sub) container[attribute!] = { ...(container[attribute!] as Resource | undefined), [sub]: value };
  else container[attribute!] = value;
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value : undefined);

/**
 * The user as SCIM shows it. `stored`: only what is kept, without the values shown in place of absent ones
 * (name.formatted from the name): the base a PATCH applies to, so that writing it back changes nothing.
 */
export function toScimUser(row: UserRow, groups: GroupRef[], baseUrl: string, { stored = false } = {}): Resource {
  const base = scimBase(baseUrl);
  const attributes = row.attributes;
  const resource: Resource = { schemas: [CORE_USER], id: row.uuid };
  if (row.external_id) resource.externalId = row.external_id;
  resource.userName = row.username;
  const formatted = text(attributes.formatted_name) ?? (stored ? undefined : row.name);
  resource.name = formatted === undefined ? {} : { formatted };
  resource.displayName = row.name;
  for (const [path, key] of Object.entries(USER_ATTRIBUTE_KEYS)) {
    const value = text(attributes[key]);
    if (value === undefined || path === `${ENTERPRISE_USER}:manager`) continue;
    put(resource, path, value);
  }
  if (!Object.keys(resource.name as Resource).length) delete resource.name;
  resource.active = row.is_active;
  resource.emails = [{ value: row.email, type: 'work', primary: true }];
  for (const [attribute, key] of Object.entries(LIST_KEYS)) {
    if (Array.isArray(attributes[key]) && (attributes[key] as unknown[]).length) resource[attribute] = attributes[key];
  }
  if (groups.length) {
    resource.groups = groups.map((group) => ({
      value: group.uuid,
      $ref: `${base}/Groups/${group.uuid}`,
      display: group.name,
      type: 'direct',
    }));
  }
  const enterprise = resource[ENTERPRISE_USER] as Resource | undefined;
  const manager = enterprise?.manager;
  if (enterprise && isObject(manager)) enterprise.manager = { ...manager, $ref: `${base}/Users/${String(manager.value)}` };
  if (resource[ENTERPRISE_USER]) resource.schemas = [CORE_USER, ENTERPRISE_USER];
  return withMeta(resource, {
    resourceType: 'User',
    created: row.created_at,
    lastModified: row.updated_at,
    location: `${base}/Users/${row.uuid}`,
  });
}

interface Email {
  value?: string;
  type?: string;
  primary?: unknown;
}

/** The address kept of a resource's e-mails: the primary one, else the work one, else the first; else the userName if it is one. */
function emailOf(resource: Resource, username: string): string {
  const emails = ((resource.emails as Email[] | undefined) ?? []).filter((email) => typeof email.value === 'string' && email.value.trim());
  const chosen =
    emails.find((email) => booleanOf(email.primary) === true) ?? emails.find((email) => email.type?.toLowerCase() === 'work') ?? emails[0];
  const email = chosen?.value?.trim() ?? (isEmailAddress(username) ? username : undefined);
  if (!email) throw invalidValue('emails: a user needs an e-mail address (give emails, or a userName that is an address).');
  if (!isEmailAddress(email))
    throw invalidValue(`emails: "${email.slice(0, 100)}" is not a valid e-mail address (ASCII, at most 254 characters).`);
  return email;
}

export type UserWrite = Required<Pick<CreateUser, 'username' | 'email' | 'name' | 'attributes'>> &
  Pick<UpdateUser, 'is_active'> & { external_id: string | null };

/**
 * The user's fields from a canonical resource (conform.ts). `before` is the user being replaced: its attributes
 * that SCIM does not manage stay. `active` absent leaves the user as it is (active when created).
 */
export function userWrite(resource: Resource, before?: UserRow): UserWrite {
  const username = typeof resource.userName === 'string' ? resource.userName : '';
  if (!username.trim()) throw invalidValue('userName is required.');
  if (username.length > MAX_USERNAME) throw invalidValue(`userName is longer than ${MAX_USERNAME} characters.`);
  const email = emailOf(resource, username);
  const givenName = text(at(resource, 'name.givenName'));
  const familyName = text(at(resource, 'name.familyName'));
  const joined = [givenName, familyName].filter(Boolean).join(' ');
  const name = (text(resource.displayName) ?? text(at(resource, 'name.formatted')) ?? (joined || username)).trim();
  if (name.length > MAX_NAME) throw invalidValue(`displayName is longer than ${MAX_NAME} characters.`);

  const attributes = Object.fromEntries(Object.entries(before?.attributes ?? {}).filter(([key]) => !MANAGED_KEYS.has(key)));
  for (const [path, key] of Object.entries(USER_ATTRIBUTE_KEYS)) {
    const value = text(at(resource, path));
    if (value !== undefined) attributes[key] = value;
  }
  for (const [attribute, key] of Object.entries(LIST_KEYS)) {
    if (Array.isArray(resource[attribute])) attributes[key] = resource[attribute];
  }
  const active = resource.active === undefined ? undefined : booleanOf(resource.active);
  return {
    username,
    email,
    name,
    attributes,
    ...(active === undefined ? {} : { is_active: active }),
    external_id: text(resource.externalId) ?? null,
  };
}
