/**
 * Outbound SCIM (issue 26, item 2): the users an application may use (members of its access group, or everyone)
 * and their groups, pushed to the application's own SCIM endpoint. A push sends the user's state as it is now, not
 * the change that asked for it, so pushes that run late or twice converge on the same remote state. Idempotent:
 * the remote id is remembered per application, found by externalId (our uuid) or userName before a create, and a
 * create refused as a duplicate links the existing remote user. The remote directory is a port (RemoteDirectory),
 * implemented over HTTP in src/infra/scim-client.ts.
 */
import type { ApplicationSettings } from '../settings/schema.js';
import type { GroupRow, OutboxRow, Store, UserRow } from '../store/contract.js';
import { groupOfEvent } from './events.js';

/** An answer the remote directory gave that is no success (status null: no answer at all). */
export class RemoteFailure extends Error {
  override name = 'RemoteFailure';
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

export type Resource = Record<string, unknown>;

/** The remote SCIM server of one application. `gone`: the remote resource no longer exists (404). */
export interface RemoteDirectory {
  findUser(externalId: string, userName?: string): Promise<string | undefined>;
  /** The new remote id, or 'conflict' when the remote holds the userName already (409). */
  createUser(user: Resource): Promise<string | 'conflict'>;
  replaceUser(id: string, user: Resource): Promise<'ok' | 'gone'>;
  deactivateUser(id: string): Promise<'ok' | 'gone'>;
  findGroup(externalId: string, displayName: string): Promise<string | undefined>;
  createGroup(group: Resource): Promise<string | 'conflict'>;
  changeMember(groupId: string, op: 'add' | 'remove', userId: string): Promise<'ok' | 'gone'>;
  renameGroup(id: string, displayName: string): Promise<'ok' | 'gone'>;
  deleteGroup(id: string): Promise<'ok' | 'gone'>;
}

export type PushOutcome = 'created' | 'updated' | 'deactivated' | 'unchanged';

type ScimConfig = NonNullable<NonNullable<ApplicationSettings['provisioning']>['scim']>;

export const scimConfigOf = (app: ApplicationSettings): ScimConfig | undefined => app.provisioning?.scim;

/** An application that gets every user (not only an access group's): it must hear of new users too. */
export const provisionsEveryone = (app: ApplicationSettings): boolean => {
  const config = scimConfigOf(app);
  return Boolean(config && (config.scope === 'all' || !app.access_group));
};

/** Whether the application may have this user (its access group, lower-cased names, as the sign-in compares them). */
export function inScope(app: ApplicationSettings, groups: string[]): boolean {
  const config = scimConfigOf(app);
  if (!config) return false;
  if (config.scope === 'all' || !app.access_group) return true;
  const group = app.access_group.toLowerCase();
  return groups.some((name) => name.toLowerCase() === group);
}

const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const CORE_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** The user as the application's SCIM server gets it: externalId is our uuid, the sub of its ID tokens. */
export function remoteUser(user: UserRow): Resource {
  const { first_name: givenName, last_name: familyName } = user.attributes as { first_name?: unknown; last_name?: unknown };
  return {
    schemas: [CORE_USER],
    externalId: user.uuid,
    userName: user.username,
    displayName: user.name,
    name: {
      formatted: user.name,
      ...(typeof givenName === 'string' && givenName ? { givenName } : {}),
      ...(typeof familyName === 'string' && familyName ? { familyName } : {}),
    },
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: user.is_active,
  };
}

async function linkedOrFound(store: Store, app: string, uuid: string, find: () => Promise<string | undefined>, kind: 'User' | 'Group') {
  const linked = await store.provisioning.remoteId(app, kind, uuid);
  if (linked) return linked;
  const found = await find();
  if (found) await store.provisioning.link(app, kind, uuid, found);
  return found;
}

/** Creates or updates the user remotely, or deactivates it there when it is gone or out of scope. */
export async function pushUser(store: Store, app: ApplicationSettings, remote: RemoteDirectory, uuid: string): Promise<PushOutcome> {
  const found = await store.users.findByUuidWithGroups(uuid);
  if (!found || !inScope(app, found.groups)) {
    // Not ours to keep there any more: deactivated, not deleted (the application keeps its own records).
    const id = await linkedOrFound(store, app.slug, uuid, () => remote.findUser(uuid), 'User');
    if (!id) return 'unchanged';
    if ((await remote.deactivateUser(id)) === 'gone') await store.provisioning.unlink(app.slug, 'User', uuid);
    return 'deactivated';
  }
  const body = remoteUser(found.user);
  const id = await linkedOrFound(store, app.slug, uuid, () => remote.findUser(uuid, found.user.username), 'User');
  if (id) {
    if ((await remote.replaceUser(id, body)) === 'ok') return 'updated';
    await store.provisioning.unlink(app.slug, 'User', uuid); // deleted over there: create it again
  }
  const created = await remote.createUser(body);
  if (created !== 'conflict') {
    await store.provisioning.link(app.slug, 'User', uuid, created);
    return 'created';
  }
  // Someone made it there first (a concurrent push, an earlier import): link it and bring it up to date.
  const existing = await remote.findUser(uuid, found.user.username);
  if (!existing)
    throw new RemoteFailure(409, 'the receiver refused the user as a duplicate but finds it neither by externalId nor by userName');
  await store.provisioning.link(app.slug, 'User', uuid, existing);
  await remote.replaceUser(existing, body);
  return 'updated';
}

/** The remote id of a group, created there when missing (externalId: our uuid). */
async function remoteGroup(store: Store, app: ApplicationSettings, remote: RemoteDirectory, group: { uuid: string; name: string }) {
  const id = await linkedOrFound(store, app.slug, group.uuid, () => remote.findGroup(group.uuid, group.name), 'Group');
  if (id) return id;
  const created = await remote.createGroup({ schemas: [CORE_GROUP], displayName: group.name, externalId: group.uuid });
  const linked = created === 'conflict' ? await remote.findGroup(group.uuid, group.name) : created;
  if (!linked) throw new RemoteFailure(409, `the receiver refused the group ${group.name} as a duplicate but does not find it`);
  await store.provisioning.link(app.slug, 'Group', group.uuid, linked);
  return linked;
}

/** The group an event names, as it is now: by its id when the event carries one (a rename cannot mislead it). */
async function currentGroup(store: Store, ref: { uuid?: string; name: string }): Promise<GroupRow | undefined> {
  return ref.uuid ? store.groups.findByUuid(ref.uuid) : store.groups.findByName(ref.name);
}

/** The user's membership of a group, as it is now, pushed (the user first). */
export async function pushMembership(
  store: Store,
  app: ApplicationSettings,
  remote: RemoteDirectory,
  uuid: string,
  ref: { uuid?: string; name: string },
) {
  await pushUser(store, app, remote, uuid);
  const group = await currentGroup(store, ref);
  const userId = await store.provisioning.remoteId(app.slug, 'User', uuid);
  if (!group || !userId) return; // the group is gone (its own event deletes it there), or the user was never there
  const found = await store.users.findByUuidWithGroups(uuid);
  const member = Boolean(found && found.groups.includes(await store.groups.comparableName(group.name)));
  const groupId = await remoteGroup(store, app, remote, group);
  if ((await remote.changeMember(groupId, member ? 'add' : 'remove', userId)) === 'gone') {
    await store.provisioning.unlink(app.slug, 'Group', group.uuid);
    if (member) await remote.changeMember(await remoteGroup(store, app, remote, group), 'add', userId);
  }
}

/**
 * A group the application holds, brought to its state here: renamed when its name changed, deleted there when it
 * was deleted here (its members stay, as here). A group the application never got is left alone: it is created
 * with its first member.
 */
export async function pushGroup(store: Store, app: ApplicationSettings, remote: RemoteDirectory, uuid: string): Promise<void> {
  const id = await store.provisioning.remoteId(app.slug, 'Group', uuid);
  if (!id) return;
  const group = await store.groups.findByUuid(uuid);
  const answer = group ? await remote.renameGroup(id, group.name) : await remote.deleteGroup(id);
  if (!group || answer === 'gone') await store.provisioning.unlink(app.slug, 'Group', uuid);
}

/** What an outbox event asks of an application's remote directory. */
export async function pushEvent(store: Store, app: ApplicationSettings, remote: RemoteDirectory, event: OutboxRow): Promise<void> {
  const group = groupOfEvent(event);
  if ((event.type === 'group_renamed' || event.type === 'group_deleted') && group?.uuid) return pushGroup(store, app, remote, group.uuid);
  if (!event.user_uuid) return;
  if (event.type === 'group_membership_change' && group) await pushMembership(store, app, remote, event.user_uuid, group);
  else await pushUser(store, app, remote, event.user_uuid);
}

/** Which applications push this event: those whose users it concerns (as for webhooks, without the event filter). */
export function provisioningRecipients(applications: ApplicationSettings[], event: OutboxRow): ApplicationSettings[] {
  // A group's own change goes to every application that provisions: the push finds whether it holds the group.
  if (event.type === 'group_renamed' || event.type === 'group_deleted') return applications.filter((app) => scimConfigOf(app));
  if (!event.user_uuid || !['group_membership_change', 'user_updated', 'user_deactivated', 'user_created'].includes(event.type)) return [];
  return applications.filter((app) => {
    const config = scimConfigOf(app);
    if (!config) return false;
    if (config.scope === 'all' || !app.access_group) return true;
    const group = app.access_group.toLowerCase();
    if (event.group_name?.toLowerCase() === group) return true;
    return event.user_groups.some((name) => name.toLowerCase() === group);
  });
}

export interface SyncReport extends Record<PushOutcome, number> {
  /** Users the receiver refused, with why (the first few). */
  failed: number;
  failures: string[];
}

/**
 * A full reconciliation (`idp scim sync <app>`): every user pushed as it is now, and the memberships of the users
 * in scope; returns how many of each outcome. A user the receiver refuses is counted and the sync goes on; a
 * receiver that does not answer stops it. Remote users that are not ours are left alone.
 */
export async function syncApplication(store: Store, app: ApplicationSettings, remote: RemoteDirectory): Promise<SyncReport> {
  const report: SyncReport = { created: 0, updated: 0, deactivated: 0, unchanged: 0, failed: 0, failures: [] };
  const renamed = new Set<string>();
  const size = 100;
  for (let offset = 0; ; offset += size) {
    const { rows } = await store.users.list({}, { offset, limit: size });
    for (const user of rows) {
      try {
        report[await pushUser(store, app, remote, user.uuid)] += 1;
        const found = await store.users.findByUuidWithGroups(user.uuid);
        if (!found || !inScope(app, found.groups)) continue;
        const groups = (await store.users.groupsOf([user.id])).get(user.id)!;
        for (const uuid of groups) {
          const group = await store.groups.findByUuid(uuid);
          if (!group) continue;
          await pushMembership(store, app, remote, user.uuid, group);
          if (!renamed.has(uuid)) await pushGroup(store, app, remote, uuid); // a name that drifted there, once per group
          renamed.add(uuid);
        }
      } catch (error) {
        if (!(error instanceof RemoteFailure) || error.status === null) throw error;
        report.failed += 1;
        if (report.failures.length < 10) report.failures.push(`${user.username}: ${error.message}`);
      }
    }
    if (rows.length < size) return report;
  }
}
