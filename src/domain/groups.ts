/** Groups and memberships. */
import { UniqueViolation, type GroupFilter, type GroupRow, type NewGroup, type Page, type Store, type UserRow } from '../store/contract.js';
import { NotFoundError, UniquenessError } from '../errors.js';
import { emitGroupChanged, emitMembershipChange } from './events.js';
import type { ApplicationSettings } from '../settings/schema.js';
import { guardedBy } from './applications.js';
import { revokeApplicationAccess } from './logout.js';
import { audit } from './audit.js';

export interface GroupView {
  pk: string;
  name: string;
  users: number[];
  users_count: number;
  attributes: Record<string, unknown>;
}

const toGroupView = (row: GroupRow, users: number[]): GroupView => ({
  pk: row.uuid,
  name: row.name,
  users,
  users_count: users.length,
  attributes: row.attributes,
});

const taken = (error: unknown): never => {
  if (error instanceof UniqueViolation) throw new UniquenessError({ name: ['A group with this name already exists.'] });
  throw error;
};

async function view(store: Store, row: GroupRow): Promise<GroupView> {
  const members = await store.groups.membersOf([row.uuid]);
  return toGroupView(row, members.get(row.uuid)!);
}

async function existing(store: Store, uuid: string): Promise<GroupRow> {
  const row = await store.groups.findByUuid(uuid);
  if (!row) throw new NotFoundError('group');
  return row;
}

export async function createGroup(store: Store, input: NewGroup): Promise<GroupView> {
  return store.transaction(async (tx) => {
    const row = await tx.groups.insert(input).catch(taken);
    await audit(tx, 'group.created', { details: { group: row.uuid, name: row.name } });
    return toGroupView(row, []);
  });
}

export const getGroup = async (store: Store, uuid: string) => view(store, await existing(store, uuid));

export async function listGroups(store: Store, filter: GroupFilter, page: Page): Promise<{ total: number; results: GroupView[] }> {
  const { total, rows } = await store.groups.list(filter, page);
  const members = await store.groups.membersOf(rows.map((row) => row.uuid));
  return { total, results: rows.map((row) => toGroupView(row, members.get(row.uuid)!)) };
}

export async function updateGroup(store: Store, uuid: string, changes: Partial<NewGroup>) {
  return store.transaction(async (tx) => {
    const before = await tx.groups.lockByUuid(uuid);
    if (!before) throw new NotFoundError('group');
    const row = (await tx.groups.update(uuid, changes).catch(taken))!;
    const touched = (Object.keys(changes) as Array<keyof NewGroup>).filter(
      (field) => JSON.stringify(before[field]) !== JSON.stringify(row[field]),
    );
    if (touched.length) await audit(tx, 'group.updated', { details: { group: uuid, name: row.name, changed: touched.sort() } });
    if (touched.includes('name')) await emitGroupChanged(tx, 'group_renamed', row);
    return view(tx, row);
  });
}

/** A removal from an access group ends the user's grants with the applications it guards (spec §5 holds on refresh too). */
async function removed(tx: Store, applications: ApplicationSettings[], user: UserRow, group: GroupRow): Promise<void> {
  await emitMembershipChange(tx, user, group, 'removed');
  const apps = guardedBy(applications, group.name);
  if (apps.length)
    await revokeApplicationAccess(
      tx,
      user.uuid,
      apps.map((app) => app.client_id),
    );
}

/**
 * Members of a deleted group are removed from it: each removal is a `group_membership_change`. The row is
 * locked first, so of concurrent deletes exactly one emits the events; the others find nothing (404).
 */
export async function deleteGroup(store: Store, uuid: string, applications: ApplicationSettings[]): Promise<void> {
  await store.transaction(async (tx) => {
    const group = await tx.groups.lockByUuid(uuid);
    if (!group) throw new NotFoundError('group');
    const members = (await tx.groups.membersOf([uuid])).get(uuid)!;
    await tx.groups.delete(uuid);
    for (const userId of members) await removed(tx, applications, (await tx.users.findById(userId))!, group);
    await emitGroupChanged(tx, 'group_deleted', group);
    await audit(tx, 'group.deleted', { details: { group: uuid, name: group.name, members: members.length } });
  });
}

/**
 * Adds a user to a group or removes them; repeating either changes nothing. A change emits
 * `group_membership_change` in the same transaction. Returns whether membership changed.
 */
export async function changeGroupMembership(
  store: Store,
  uuid: string,
  userId: number,
  action: 'added' | 'removed',
  applications: ApplicationSettings[],
): Promise<boolean> {
  return store.transaction(async (tx) => {
    const group = await existing(tx, uuid);
    const user = await tx.users.findById(userId);
    if (!user) throw new NotFoundError('user');
    if (action === 'added') {
      const changed = await tx.groups.addMember(uuid, userId);
      if (changed) await emitMembershipChange(tx, user, group, 'added');
      if (changed) await audit(tx, 'group.member_added', { user: user.uuid, details: { group: uuid, name: group.name } });
      return changed;
    }
    const changed = await tx.groups.removeMember(uuid, userId);
    if (changed) await removed(tx, applications, user, group);
    if (changed) await audit(tx, 'group.member_removed', { user: user.uuid, details: { group: uuid, name: group.name } });
    return changed;
  });
}
