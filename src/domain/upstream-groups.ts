/**
 * Upstream groups kept in step (a source's `groups_claim`, docs/federation.md): at each sign-in through the source,
 * the account's groups named `{group_prefix}{name}` become exactly the upstream's list — joined (the group created
 * when missing) and left through changeGroupMembership, so the events, the audit entries and an access group's
 * revocation are the API's. Groups without the prefix are never touched: the upstream cannot take anyone out of a
 * group an administrator manages here, nor put them in one.
 */
import type { ApplicationSettings, SourceSettings } from '../settings/schema.js';
import type { Store, UserRow } from '../store/contract.js';
import { changeGroupMembership } from './groups.js';
import { ensureGroupsNamed } from './source-links.js';

/** The longest group name the store takes. */
const NAME_LIMIT = 150;

export async function syncUpstreamGroups(
  store: Store,
  source: SourceSettings,
  user: UserRow,
  upstreamNames: readonly string[],
  applications: ApplicationSettings[],
): Promise<void> {
  const prefix = source.group_prefix ?? `${source.slug}:`;
  const comparable = (name: string) => store.groups.comparableName(name);
  const wanted = new Map<string, string>(); // comparable name → name
  for (const name of upstreamNames.map((upstream) => `${prefix}${upstream}`).filter((name) => name.length <= NAME_LIMIT))
    wanted.set(await comparable(name), name);

  const prefixKey = await comparable(prefix);
  const memberOf = new Set((await store.users.groupsOf([user.id])).get(user.id));
  for (const uuid of memberOf) {
    const group = await store.groups.findByUuid(uuid);
    if (!group) continue;
    const key = await comparable(group.name);
    if (key.startsWith(prefixKey) && !wanted.has(key)) await changeGroupMembership(store, uuid, user.id, 'removed', applications);
  }
  for (const uuid of (await ensureGroupsNamed(store, [...wanted.values()])).values())
    if (!memberOf.has(uuid)) await changeGroupMembership(store, uuid, user.id, 'added', applications);
}
