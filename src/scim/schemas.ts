/**
 * The SCIM schemas this server speaks (RFC 7643 §4, §8.7.1): the attributes of User, the enterprise extension and
 * Group, each with its type and mutability. One table serves the /Schemas document, the reading of request bodies
 * (conform.ts), PATCH paths (patch.ts) and attribute projection (projection.ts).
 */

export const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const CORE_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SEARCH_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SERVICE_PROVIDER_CONFIG = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
export const RESOURCE_TYPE = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
export const SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export interface Attribute {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'dateTime' | 'reference';
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  subAttributes?: Attribute[];
  referenceTypes?: string[];
  canonicalValues?: string[];
}

type Options = Partial<Omit<Attribute, 'name' | 'description'>>;

const attr = (name: string, description: string, options: Options = {}): Attribute => ({
  name,
  type: 'string',
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...options,
});

const complex = (name: string, description: string, subAttributes: Attribute[], options: Options = {}) =>
  attr(name, description, { type: 'complex', subAttributes, ...options });

const typeAndPrimary = (types: string[]) => [
  attr('type', 'A label for the value’s function.', { canonicalValues: types }),
  attr('primary', 'The primary value of the attribute.', { type: 'boolean' }),
];

/** A multi-valued contact attribute: value, type, primary. */
const contacts = (name: string, description: string, types: string[]) =>
  complex(name, description, [attr('value', `The ${name} value.`), ...typeAndPrimary(types)], { multiValued: true });

export const userAttributes: Attribute[] = [
  attr('userName', 'Unique identifier of the user, the username; unique case-insensitively.', { required: true, uniqueness: 'server' }),
  complex('name', 'The components of the user’s name.', [
    attr('formatted', 'The full name, formatted for display.'),
    attr('familyName', 'The family name (the family_name claim).'),
    attr('givenName', 'The given name (the given_name claim).'),
  ]),
  attr('displayName', 'The name shown for the user (the name claim).'),
  attr('nickName', 'A casual name.'),
  attr('profileUrl', 'A URL of the user’s online profile.', { type: 'reference', referenceTypes: ['external'] }),
  attr('title', 'The user’s job title.'),
  attr('userType', 'The relation to the organisation, e.g. Employee or Contractor.'),
  attr('preferredLanguage', 'Preferred written or spoken language (RFC 7231 Accept-Language form).'),
  attr('locale', 'The user’s locale, e.g. en-US.'),
  attr('timezone', 'The user’s time zone (IANA name).'),
  attr('active', 'Whether the user may sign in; false deactivates (sessions and grants end).', { type: 'boolean' }),
  complex(
    'emails',
    'E-mail addresses. The service keeps one: the primary one, else the work one, else the first.',
    [attr('value', 'The address.'), attr('display', 'A label for the address.'), ...typeAndPrimary(['work', 'home', 'other'])],
    { multiValued: true },
  ),
  contacts('phoneNumbers', 'Phone numbers.', ['work', 'home', 'mobile', 'fax', 'pager', 'other']),
  complex(
    'addresses',
    'Physical mailing addresses.',
    [
      attr('formatted', 'The full address, formatted for display.'),
      attr('streetAddress', 'The street address.'),
      attr('locality', 'The city or locality.'),
      attr('region', 'The state or region.'),
      attr('postalCode', 'The postal code.'),
      attr('country', 'The country (ISO 3166-1 alpha-2).'),
      ...typeAndPrimary(['work', 'home', 'other']),
    ],
    { multiValued: true },
  ),
  complex(
    'groups',
    'The groups the user belongs to (change membership through the groups).',
    [
      attr('value', 'The group’s id.', { mutability: 'readOnly' }),
      attr('$ref', 'The URI of the group.', { type: 'reference', referenceTypes: ['Group'], mutability: 'readOnly' }),
      attr('display', 'The group’s displayName.', { mutability: 'readOnly' }),
      attr('type', 'direct (groups do not nest).', { mutability: 'readOnly', canonicalValues: ['direct'] }),
    ],
    { multiValued: true, mutability: 'readOnly' },
  ),
];

export const enterpriseAttributes: Attribute[] = [
  attr('employeeNumber', 'The employee number.'),
  attr('costCenter', 'The cost center.'),
  attr('organization', 'The organisation.'),
  attr('division', 'The division.'),
  attr('department', 'The department.'),
  complex('manager', 'The user’s manager.', [
    attr('value', 'The manager’s id.'),
    attr('$ref', 'The URI of the manager.', { type: 'reference', referenceTypes: ['User'] }),
    attr('displayName', 'The manager’s displayName.', { mutability: 'readOnly' }),
  ]),
];

export const groupAttributes: Attribute[] = [
  attr('displayName', 'The group’s name; unique case-insensitively.', { required: true, uniqueness: 'server' }),
  complex(
    'members',
    'The members: users, by id.',
    [
      attr('value', 'The user’s id.', { mutability: 'immutable' }),
      attr('$ref', 'The URI of the user.', { type: 'reference', referenceTypes: ['User'], mutability: 'immutable' }),
      attr('display', 'The user’s displayName.', { mutability: 'readOnly' }),
      attr('type', 'User (groups do not nest).', { mutability: 'immutable', canonicalValues: ['User'] }),
    ],
    { multiValued: true },
  ),
];

/** Attributes every resource has (RFC 7643 §3.1); not listed in /Schemas, but paths and projections name them. */
export const commonAttributes: Attribute[] = [
  attr('id', 'The service’s id of the resource.', { mutability: 'readOnly', returned: 'always', caseExact: true, uniqueness: 'server' }),
  attr('externalId', 'The provisioning client’s id of the resource.', { caseExact: true }),
  complex(
    'meta',
    'Resource metadata.',
    [
      attr('resourceType', 'User or Group.', { mutability: 'readOnly', caseExact: true }),
      attr('created', 'When the resource was created.', { type: 'dateTime', mutability: 'readOnly' }),
      attr('lastModified', 'When the resource last changed.', { type: 'dateTime', mutability: 'readOnly' }),
      attr('location', 'The URI of the resource.', { type: 'reference', mutability: 'readOnly', caseExact: true }),
      attr('version', 'The resource’s ETag.', { mutability: 'readOnly', caseExact: true }),
    ],
    { mutability: 'readOnly' },
  ),
];

/** A resource type: its core schema and attributes, and its extensions by URN. */
export interface ResourceSchema {
  name: 'User' | 'Group';
  core: string;
  attributes: Attribute[];
  extensions: Record<string, Attribute[]>;
}

export const USER: ResourceSchema = {
  name: 'User',
  core: CORE_USER,
  attributes: userAttributes,
  extensions: { [ENTERPRISE_USER]: enterpriseAttributes },
};
export const GROUP: ResourceSchema = { name: 'Group', core: CORE_GROUP, attributes: groupAttributes, extensions: {} };

/** An attribute among `attributes` by name, case-insensitively (RFC 7643 §2.1). */
export const findAttribute = (attributes: Attribute[], name: string): Attribute | undefined =>
  attributes.find((attribute) => attribute.name.toLowerCase() === name.toLowerCase());

/** The top-level attributes of a resource (core and common), or of one of its extensions. */
export function attributesOf(schema: ResourceSchema, urn?: string): Attribute[] | undefined {
  if (!urn || urn.toLowerCase() === schema.core.toLowerCase()) return [...commonAttributes, ...schema.attributes];
  const extension = Object.keys(schema.extensions).find((known) => known.toLowerCase() === urn.toLowerCase());
  return extension ? schema.extensions[extension] : undefined;
}

/** The extension URN as the schema spells it, for a URN in any case; undefined when unknown. */
export const extensionUrn = (schema: ResourceSchema, urn: string): string | undefined =>
  Object.keys(schema.extensions).find((known) => known.toLowerCase() === urn.toLowerCase());
