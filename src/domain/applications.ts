/** Applications (relying parties) as the domain sees them: their access groups and who may sign in. */
import type { ApplicationSettings } from '../settings/schema.js';
import type { Store, UserRow } from '../store/contract.js';
import { UniqueViolation } from '../store/contract.js';

/** Finds a group by exact name, case-insensitively. */
async function findGroupByName(store: Store, name: string): Promise<string | undefined> {
  const { rows } = await store.groups.list({ search: name }, { offset: 0, limit: 100 });
  return rows.find((row) => row.name.toLowerCase() === name.toLowerCase())?.uuid;
}

/** Creates each application's access group when missing; returns slug → group uuid. */
export async function ensureAccessGroups(store: Store, applications: ApplicationSettings[]): Promise<Map<string, string>> {
  const groups = new Map<string, string>();
  for (const app of applications) {
    if (!app.access_group) continue;
    let uuid = await findGroupByName(store, app.access_group);
    if (!uuid) {
      try {
        uuid = (await store.groups.insert({ name: app.access_group })).uuid;
      } catch (error) {
        if (!(error instanceof UniqueViolation)) throw error;
        uuid = await findGroupByName(store, app.access_group); // another replica created it first
      }
    }
    groups.set(app.slug, uuid!);
  }
  return groups;
}

/**
 * Spec §5: a user outside the application's access group cannot sign in to it. The group is looked up
 * by name on every check, so renaming or recreating it through the API takes effect at once.
 */
export async function mayUseApplication(store: Store, app: ApplicationSettings, user: UserRow): Promise<boolean> {
  if (!user.is_active) return false;
  if (!app.access_group) return true;
  const group = await findGroupByName(store, app.access_group);
  if (!group) return false;
  const memberships = await store.users.groupsOf([user.id]);
  return memberships.get(user.id)!.includes(group);
}

/** The active user with this e-mail, if any. */
export async function findUserByEmail(store: Store, email: string): Promise<UserRow | undefined> {
  const { rows } = await store.users.list({ email: email.trim() }, { offset: 0, limit: 1 });
  return rows[0];
}
