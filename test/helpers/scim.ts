/** A SCIM client for tests: requests to /scim/v2 of a test server with a `scim` token, as application/scim+json. */
import type { TestServer } from './server.js';

export const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const CORE_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimCall = (
  path: string,
  init?: { method?: string; json?: unknown; body?: string; headers?: Record<string, string>; token?: string | null },
) => Promise<{ status: number; headers: Headers; body: any }>;

/** Calls under /scim/v2 with `token` (made with the `scim` scope when omitted). */
export async function scimClient(s: TestServer, token?: string): Promise<ScimCall> {
  const bearer = token ?? (await s.token(['scim']));
  return (path, init = {}) =>
    s.api(`/scim/v2${path}`, {
      token: bearer,
      ...init,
      headers: { ...(init.json !== undefined ? { 'Content-Type': 'application/scim+json' } : {}), ...init.headers },
    });
}

/** A PatchOp body. */
export const patch = (...operations: Array<Record<string, unknown>>) => ({ schemas: [PATCH_OP], Operations: operations });

/** A user as Entra ID's default attribute mappings send it. */
export const entraUser = (n: string, extra: Record<string, unknown> = {}) => ({
  schemas: [CORE_USER, ENTERPRISE_USER],
  externalId: `ext-${n}`,
  userName: `${n}@contoso.example`,
  active: true,
  displayName: `Display ${n}`,
  title: 'Engineer',
  emails: [{ primary: true, type: 'work', value: `${n}@contoso.example` }],
  preferredLanguage: 'en-US',
  name: { formatted: `Given${n} Family`, familyName: 'Family', givenName: `Given${n}` },
  phoneNumbers: [{ type: 'work', value: '+1 555 0100' }],
  addresses: [{ type: 'work', streetAddress: '1 Main St', locality: 'Springfield', postalCode: '98052', country: 'US', primary: true }],
  [ENTERPRISE_USER]: { employeeNumber: '42', department: 'R&D', manager: { value: 'manager-id' } },
  ...extra,
});

/** A user as Okta's SCIM 2.0 test plan sends it. */
export const oktaUser = (n: string, extra: Record<string, unknown> = {}) => ({
  schemas: [CORE_USER],
  userName: `${n}@okta.example`,
  name: { givenName: 'Test', familyName: n },
  emails: [{ primary: true, value: `${n}@okta.example`, type: 'work' }],
  displayName: `Test ${n}`,
  locale: 'en-US',
  externalId: `00u${n}`,
  groups: [],
  password: 'ignored-1A!',
  active: true,
  ...extra,
});
