/**
 * The storage contract. One implementation (Kysely) serves PGlite and PostgreSQL; the conformance suite in
 * test/store/ holds every backend to the guarantees written here.
 */
import type { Selectable } from 'kysely';
import type { ApiTokensTable, GroupsTable, UsersTable } from './tables.js';

export type UserRow = Omit<Selectable<UsersTable>, 'password_hash'>;
export type GroupRow = Selectable<GroupsTable>;
export type ApiTokenRow = Omit<Selectable<ApiTokensTable>, 'token_hash'>;

/** A unique constraint refused a write. `field` names the API field it protects. */
export class UniqueViolation extends Error {
  override name = 'UniqueViolation';
  constructor(readonly field: string) {
    super(`${field} is already taken`);
  }
}

export interface Page { offset: number; limit: number }
export interface Slice<T> { total: number; rows: T[] }

export interface NewUser {
  username: string;
  email: string;
  name: string;
  is_active?: boolean;
  attributes?: Record<string, unknown>;
}
export type UserChanges = Partial<Pick<UserRow, 'username' | 'email' | 'name' | 'is_active' | 'attributes' | 'email_verified'>>;

export interface UserFilter {
  /** Members of any of these groups. */
  groups?: string[];
  /** Exact e-mail, case-insensitive. */
  email?: string;
  /** Case-insensitive substring of name or e-mail (trigram-indexed). */
  search?: string;
  is_active?: boolean;
}

export interface UsersRepository {
  /** MUST refuse a username or e-mail already present, case-insensitively, with UniqueViolation, even under concurrency. */
  insert(user: NewUser): Promise<UserRow>;
  findById(id: number): Promise<UserRow | undefined>;
  /** Ordered by id, so pages are stable. */
  list(filter: UserFilter, page: Page): Promise<Slice<UserRow>>;
  /** Returns undefined for an unknown id. Same uniqueness rule as insert. Bumps updated_at. */
  update(id: number, changes: UserChanges): Promise<UserRow | undefined>;
  delete(id: number): Promise<boolean>;
  /** Group uuids of each user (users without groups map to []). */
  groupsOf(ids: number[]): Promise<Map<number, string[]>>;
}

export interface GroupFilter { search?: string }

export interface GroupsRepository {
  /** MUST refuse a name already present, case-insensitively, with UniqueViolation('name'). */
  insert(group: { name: string; attributes?: Record<string, unknown> }): Promise<GroupRow>;
  findByUuid(uuid: string): Promise<GroupRow | undefined>;
  /** The subset of `uuids` that names no group. */
  missing(uuids: string[]): Promise<string[]>;
  /** Ordered by name, then uuid. */
  list(filter: GroupFilter, page: Page): Promise<Slice<GroupRow>>;
  update(uuid: string, changes: { name?: string; attributes?: Record<string, unknown> }): Promise<GroupRow | undefined>;
  delete(uuid: string): Promise<boolean>;
  /** True when the membership is new; adding twice is harmless. */
  addMember(groupUuid: string, userId: number): Promise<boolean>;
  /** True when a membership was removed. */
  removeMember(groupUuid: string, userId: number): Promise<boolean>;
  /** Member user ids of each group, ascending. */
  membersOf(uuids: string[]): Promise<Map<string, number[]>>;
}

export interface ApiTokensRepository {
  insert(token: { name: string; token_hash: string; scopes: string[]; expires_at?: Date | null }): Promise<ApiTokenRow>;
  /** A token that exists, is not revoked and has not expired at `now`. */
  findUsable(tokenHash: string, now: Date): Promise<ApiTokenRow | undefined>;
  list(): Promise<ApiTokenRow[]>;
  /** True when a usable token was revoked by this call. */
  revoke(id: string, now: Date): Promise<boolean>;
  touch(id: string, now: Date): Promise<void>;
}

export interface InstanceState {
  /** True for exactly one caller per key, ever (first-start work such as the bootstrap token). */
  claimOnce(key: string): Promise<boolean>;
}

export interface Store {
  users: UsersRepository;
  groups: GroupsRepository;
  apiTokens: ApiTokensRepository;
  state: InstanceState;
  /** Runs `work` in one database transaction: all of its writes land, or none. Nested calls join the outer one. */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
}
