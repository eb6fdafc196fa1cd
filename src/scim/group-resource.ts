/**
 * A group as a SCIM resource and back: id = uuid, displayName = name, externalId = external_id, members = the
 * users in it (value = the user's uuid, display = its name). Groups hold users only; they do not nest.
 */
import type { GroupRow, MemberRef } from '../store/contract.js';
import type { Resource } from './conform.js';
import { invalidValue } from './errors.js';
import { CORE_GROUP } from './schemas.js';
import { scimBase, withMeta } from './meta.js';

const MAX_NAME = 150;

/** `members` undefined: left out (excludedAttributes=members), and never read. */
export function toScimGroup(row: GroupRow, members: MemberRef[] | undefined, baseUrl: string): Resource {
  const base = scimBase(baseUrl);
  const resource: Resource = { schemas: [CORE_GROUP], id: row.uuid };
  if (row.external_id) resource.externalId = row.external_id;
  resource.displayName = row.name;
  const versioned = { ...resource };
  if (members?.length) {
    resource.members = members.map((member) => ({
      value: member.uuid,
      display: member.name,
      $ref: `${base}/Users/${member.uuid}`,
      type: 'User',
    }));
  }
  return withMeta(
    resource,
    { resourceType: 'Group', created: row.created_at, lastModified: row.updated_at, location: `${base}/Groups/${row.uuid}` },
    versioned,
  );
}

export interface GroupWrite {
  name: string;
  external_id: string | null;
  /** Member user uuids, lower-cased; undefined: keep the members as they are. */
  members?: string[];
}

/**
 * The group's fields from a canonical resource (conform.ts). Without `members` a PUT keeps the members (RFC 7644
 * §3.5.1 lets the server choose; Okta renames with PUT), while after a PATCH their absence means none are left.
 */
export function groupWrite(resource: Resource, absentMembers: 'keep' | 'none'): GroupWrite {
  const name = typeof resource.displayName === 'string' ? resource.displayName : '';
  if (!name.trim()) throw invalidValue('displayName is required.');
  if (name.length > MAX_NAME) throw invalidValue(`displayName is longer than ${MAX_NAME} characters.`);
  const externalId = typeof resource.externalId === 'string' && resource.externalId.trim() ? resource.externalId : null;
  const members = resource.members as Array<{ value?: unknown }> | undefined;
  if (members === undefined) return { name, external_id: externalId, ...(absentMembers === 'none' ? { members: [] } : {}) };
  const values = members.map((member) => member.value);
  if (values.some((value) => typeof value !== 'string' || !value)) throw invalidValue('members: each member needs a value (a user id).');
  return { name, external_id: externalId, members: [...new Set((values as string[]).map((value) => value.toLowerCase()))] };
}
