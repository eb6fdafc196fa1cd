/** Users: create, read, update, delete. Every write runs in one transaction. */
import { UniqueViolation, type Page, type NewAuditEvent, type Store, type UserFilter, type UserRow } from '../store/contract.js';
import { NotFoundError, UniquenessError, ValidationError } from '../errors.js';
import { changedFields, emitMembershipChange, emitUserCreated, emitUserDeactivated, emitUserUpdated } from './events.js';
import type { ApplicationSettings } from '../settings/schema.js';
import { provisionsEveryone } from './provisioning.js';
import { signOutEverywhere } from './logout.js';
import { audit } from './audit.js';

export interface UserView {
  pk: number;
  uuid: string;
  username: string;
  email: string;
  name: string;
  is_active: boolean;
  email_verified: boolean;
  last_login: string | null;
  attributes: Record<string, unknown>;
  groups: string[];
}

export interface CreateUser {
  username: string;
  email: string;
  name: string;
  is_active?: boolean;
  email_verified?: boolean;
  groups?: string[];
  attributes?: Record<string, unknown>;
  /** A provisioning client's id for the user (SCIM externalId; the API neither shows nor takes it). */
  external_id?: string | null;
}

export type UpdateUser = Partial<
  Pick<CreateUser, 'username' | 'email' | 'name' | 'is_active' | 'email_verified' | 'attributes' | 'external_id'>
>;

export const toUserView = (row: UserRow, groups: string[]): UserView => ({
  pk: row.id,
  uuid: row.uuid,
  username: row.username,
  email: row.email,
  name: row.name,
  is_active: row.is_active,
  email_verified: row.email_verified,
  last_login: row.last_login ? row.last_login.toISOString() : null,
  attributes: row.attributes,
  groups,
});

const taken = (error: unknown): never => {
  if (error instanceof UniqueViolation) throw new UniquenessError({ [error.field]: [`A user with this ${error.field} already exists.`] });
  throw error;
};

async function view(store: Store, row: UserRow): Promise<UserView> {
  const groups = await store.users.groupsOf([row.id]);
  return toUserView(row, groups.get(row.id)!);
}

/** Creates a user; `applications` that provision everyone (SCIM, scope all) hear of it through the outbox. */
export async function createUser(store: Store, input: CreateUser, applications: ApplicationSettings[] = []): Promise<UserView> {
  return store.transaction(async (tx) => {
    const groups = [...new Set(input.groups ?? [])];
    const missing = await tx.groups.missing(groups);
    if (missing.length) throw new ValidationError({ groups: missing.map((uuid) => `Group ${uuid} does not exist.`) });
    const row = await tx.users.insert(input).catch(taken);
    if (applications.some(provisionsEveryone)) await emitUserCreated(tx, row);
    for (const group of groups) await tx.groups.addMember(group, row.id);
    for (const group of groups) await emitMembershipChange(tx, row, (await tx.groups.findByUuid(group))!, 'added');
    await audit(tx, 'user.created', { user: row.uuid, details: { fields: Object.keys(input).sort() } });
    return view(tx, row);
  });
}

/** The user with this uuid (the OIDC subject), active or not. */
export const findUserByUuid = (store: Store, uuid: string) => store.users.findByUuid(uuid);

/** A completed sign-in: shown as last_login, written together with its audit event. */
export const recordSignIn = (store: Store, userId: number, event: NewAuditEvent, at = new Date()) =>
  store.credentials.recordLogin(userId, at, event);

export async function getUser(store: Store, id: number): Promise<UserView> {
  const row = await store.users.findById(id);
  if (!row) throw new NotFoundError('user');
  return view(store, row);
}

export async function listUsers(store: Store, filter: UserFilter, page: Page): Promise<{ total: number; results: UserView[] }> {
  const { total, rows } = await store.users.list(filter, page);
  const groups = await store.users.groupsOf(rows.map((row) => row.id));
  return { total, results: rows.map((row) => toUserView(row, groups.get(row.id)!)) };
}

/**
 * Changes a user; emits `user_updated` for changed profile fields and `user_deactivated` when is_active turns
 * false. The row is locked first, so of concurrent deactivations exactly one sees the change and emits.
 */
export async function updateUser(store: Store, id: number, changes: UpdateUser): Promise<UserView> {
  return store.transaction(async (tx) => {
    const before = await tx.users.lockById(id);
    if (!before) throw new NotFoundError('user');
    // A new address is unproven until its owner shows they read mail there (or the operator says so in the same change).
    const emailChanged = changes.email !== undefined && changes.email.toLowerCase() !== before.email.toLowerCase();
    const unproven = emailChanged && changes.email_verified === undefined ? { email_verified: false } : {};
    const row = (await tx.users.update(id, { ...changes, ...unproven }).catch(taken))!;
    const changed = changedFields(before, row);
    if (changed.length) await emitUserUpdated(tx, row, changed);
    // Every field that changed (deactivation too), by name: the values stay out of the trail.
    const touched = (Object.keys(changes) as Array<keyof UpdateUser>).filter(
      (field) => JSON.stringify(before[field]) !== JSON.stringify(row[field]),
    );
    if (emailChanged && !touched.includes('email_verified') && before.email_verified !== row.email_verified) touched.push('email_verified');
    if (touched.length) await audit(tx, 'user.updated', { user: row.uuid, details: { changed: touched.sort() } });
    if (before.is_active && !row.is_active) {
      await emitUserDeactivated(tx, row);
      await signOutEverywhere(tx, row.uuid); // sessions, grants and tokens end now, not at their expiry
    }
    return view(tx, row);
  });
}

/** Deleting is the final deactivation: applications hear `user_deactivated` (if the user was active), once. */
export async function deleteUser(store: Store, id: number): Promise<void> {
  await store.transaction(async (tx) => {
    const row = await tx.users.lockById(id);
    if (!row) throw new NotFoundError('user');
    if (row.is_active) await emitUserDeactivated(tx, row);
    await signOutEverywhere(tx, row.uuid);
    await tx.users.delete(id);
    await audit(tx, 'user.deleted', { user: row.uuid, details: { username: row.username } });
  });
}
