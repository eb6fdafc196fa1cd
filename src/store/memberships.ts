/** Memberships read from either side: the groups of some users, or the members of some groups. */
import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';
import { collect } from './collect.js';

type Side = 'user_id' | 'group_uuid';
const other = { user_id: 'group_uuid', group_uuid: 'user_id' } as const;

/** For each key of `side`, the other side's values, ascending (every key present; [] when it has none). */
export async function membershipsBy<S extends Side>(
  db: Kysely<Tables>,
  side: S,
  keys: Array<Tables['memberships'][S]>,
): Promise<Map<Tables['memberships'][S], Array<Tables['memberships'][(typeof other)[S]]>>> {
  const rows = keys.length
    ? await db
        .selectFrom('memberships')
        .select(['user_id', 'group_uuid'])
        .where(side, 'in', keys as never[])
        .orderBy(other[side])
        .execute()
    : [];
  return collect(
    keys,
    rows,
    (row) => row[side] as Tables['memberships'][S],
    (row) => row[other[side]] as Tables['memberships'][(typeof other)[S]],
  );
}
