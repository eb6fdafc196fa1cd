/**
 * The storage contract of the audit trail and of the directory queries of provisioning (SCIM). Part of contract.ts,
 * which re-exports it.
 */
import type { Selectable } from 'kysely';
import type { ActorType, AuditEventsTable } from './tables.js';
import type { UserRow, GroupRow, Page, Slice } from './contract.js';

// ---- The audit trail

/*
 * Storage contract of the audit trail. Append-only: a row is never changed, only pruned after the retention
 * period. Details never hold secret values (the domain layer decides what goes in).
 */
export type AuditRow = Selectable<AuditEventsTable>;

export interface NewAuditEvent {
  action: string;
  actor_type: ActorType;
  actor?: string | null;
  user_uuid?: string | null;
  app?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditFilter {
  user?: string;
  /** Who acted: a user's uuid, an API token's id (the audit entry's actor). */
  actor?: string;
  app?: string;
  action?: string;
  /** Inclusive bounds on `at`. */
  since?: Date;
  until?: Date;
}

export interface AuditRepository {
  /** Appends one event (inside the caller's transaction when there is one). */
  record(event: NewAuditEvent): Promise<void>;
  /** Newest first, with the total matching. */
  list(filter: AuditFilter, page: Page): Promise<Slice<AuditRow>>;
  /** Deletes events older than `before`; returns how many. */
  prune(before: Date): Promise<number>;
}

// ---- Directory queries (SCIM: src/scim/)

export type Comparison = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/**
 * A filter over users or groups, in the store's own field names (the SCIM layer translates attribute paths to
 * these). Fields of users: uuid, username, email, name, external_id, is_active, created_at, updated_at,
 * `attributes.<key>` (the attribute as text), `group.uuid`, `group.name` (some group of the user). Of groups:
 * uuid, name, external_id, created_at, updated_at, `member.uuid`, `member.name` (some member).
 */
export type Condition =
  | { kind: 'constant'; value: boolean }
  | { kind: 'and' | 'or'; conditions: Condition[] }
  | { kind: 'not'; condition: Condition }
  /** The field has a value (text: a non-empty one; group/member fields: at least one membership). */
  | { kind: 'present'; field: string }
  /**
   * Text compares case-insensitively (as the database lowers) unless `caseExact`; booleans take eq/ne only,
   * timestamps no co/sw/ew; `ne` also matches an absent value. A related field matches when some relative does.
   */
  | { kind: 'compare'; field: string; op: Comparison; value: string | boolean | Date; caseExact?: boolean };

export interface MemberRef {
  id: number;
  uuid: string;
  name: string;
}
export interface GroupRef {
  uuid: string;
  name: string;
}

/**
 * Filtered lists for provisioning clients, in SQL: a condition on an indexed column (lower(username), lower(email),
 * lower(groups.name), external_id, uuid) is answered through its index; a page never reads the rows before it.
 * A field the condition names that is not listed at Condition throws (a programming error, never input).
 */
export interface DirectoryRepository {
  /** Users matching `where`, ordered by id; `total` counts every match. A page of limit 0 reads no rows. */
  findUsers(where: Condition, page: Page): Promise<Slice<UserRow>>;
  /** Groups matching `where`, ordered by name (case-insensitively), then uuid. */
  findGroups(where: Condition, page: Page): Promise<Slice<GroupRow>>;
  /** Members of each group, by user id (every group present; [] when it has none). */
  membersOf(groupUuids: string[]): Promise<Map<string, MemberRef[]>>;
  /** Groups of each user, by name case-insensitively (every user present). */
  groupsOf(userIds: number[]): Promise<Map<number, GroupRef[]>>;
  /** The users with these uuids, in no order; malformed or unknown uuids are skipped. */
  usersByUuid(uuids: string[]): Promise<UserRow[]>;
}

/** Outbound provisioning: the remote SCIM id of each local user or group (its uuid), per application. */
export interface ProvisioningRepository {
  remoteId(app: string, kind: 'User' | 'Group', localId: string): Promise<string | undefined>;
  /** Remembers the remote id, replacing an earlier one. */
  link(app: string, kind: 'User' | 'Group', localId: string, remoteId: string): Promise<void>;
  unlink(app: string, kind: 'User' | 'Group', localId: string): Promise<void>;
}
