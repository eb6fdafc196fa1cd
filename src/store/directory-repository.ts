/** Filtered lists of users and groups and their memberships with names, for provisioning clients (SCIM). */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Condition, DirectoryRepository, GroupRef, GroupRow, MemberRef, Page, Slice, UserRow } from './contract.js';
import type { Tables } from './tables.js';
import { toSql, type Column, type Fields } from './conditions.js';
import { USER_COLUMNS } from './users-repository.js';
import { collect } from './collect.js';
import { UUID } from '../uuid.js';

/** `table.column` for each field name, with its kind (the fields a filter or a sort may name). */
const columns = (table: string, kinds: Record<string, Column['kind']>): Record<string, Column> =>
  Object.fromEntries(Object.entries(kinds).map(([name, kind]) => [name, { kind, sql: sql.ref(`${table}.${name}`) }]));

const COMMON = { uuid: 'uuid', external_id: 'text', created_at: 'timestamp', updated_at: 'timestamp' } as const;

const inGroup = (inner: RawBuilder<boolean>) =>
  sql<boolean>`exists (select 1 from memberships m join groups g on g.uuid = m.group_uuid where m.user_id = users.id and ${inner})`;

const userFields: Fields = {
  named: {
    ...columns('users', { ...COMMON, username: 'text', email: 'text', name: 'text', is_active: 'boolean' }),
    'group.uuid': { kind: 'related', column: { kind: 'uuid', sql: sql.ref('g.uuid') }, exists: inGroup },
    'group.name': { kind: 'related', column: { kind: 'text', sql: sql.ref('g.name') }, exists: inGroup },
  },
  attribute: (key) => ({ kind: 'text', sql: sql`(users.attributes ->> ${key})` }),
};

const memberOf = (inner: unknown) =>
  sql<boolean>`exists (select 1 from memberships m join users u on u.id = m.user_id where m.group_uuid = groups.uuid and ${inner})`;

const groupFields: Fields = {
  named: {
    ...columns('groups', { ...COMMON, name: 'text' }),
    'member.uuid': { kind: 'related', column: { kind: 'uuid', sql: sql.ref('u.uuid') }, exists: memberOf },
    'member.name': { kind: 'related', column: { kind: 'text', sql: sql.ref('u.name') }, exists: memberOf },
  },
};

/** The users matching a condition, before a select (exported: tests read the plan of this very query). */
export const matchingUsers = (db: Kysely<Tables>, where: Condition) => db.selectFrom('users').where(toSql(where, userFields));
export const matchingGroups = (db: Kysely<Tables>, where: Condition) => db.selectFrom('groups').where(toSql(where, groupFields));

export function directoryRepository(db: Kysely<Tables>): DirectoryRepository {
  return {
    async findUsers(where: Condition, page: Page): Promise<Slice<UserRow>> {
      // The count and the page are independent reads: asked together, a list waits for the slower, not both.
      const [{ total }, rows] = await Promise.all([
        matchingUsers(db, where)
          .select(sql<number>`count(*)::int`.as('total'))
          .executeTakeFirstOrThrow(),
        page.limit
          ? matchingUsers(db, where).select(USER_COLUMNS).orderBy('id').offset(page.offset).limit(page.limit).execute()
          : Promise.resolve([]),
      ]);
      return { total, rows };
    },

    async findGroups(where: Condition, page: Page): Promise<Slice<GroupRow>> {
      const [{ total }, rows] = await Promise.all([
        matchingGroups(db, where)
          .select(sql<number>`count(*)::int`.as('total'))
          .executeTakeFirstOrThrow(),
        page.limit
          ? matchingGroups(db, where)
              .selectAll()
              .orderBy(sql`lower(name)`)
              .orderBy('uuid')
              .offset(page.offset)
              .limit(page.limit)
              .execute()
          : Promise.resolve([]),
      ]);
      return { total, rows };
    },

    async membersOf(groupUuids: string[]): Promise<Map<string, MemberRef[]>> {
      const rows = groupUuids.length
        ? await db
            .selectFrom('memberships')
            .innerJoin('users', 'users.id', 'memberships.user_id')
            .select(['memberships.group_uuid', 'users.id', 'users.uuid', 'users.name'])
            .where('memberships.group_uuid', 'in', groupUuids)
            .orderBy('users.id')
            .execute()
        : [];
      return collect(
        groupUuids,
        rows,
        (row) => row.group_uuid,
        ({ id, uuid, name }) => ({ id, uuid, name }),
      );
    },

    async groupsOf(userIds: number[]): Promise<Map<number, GroupRef[]>> {
      const rows = userIds.length
        ? await db
            .selectFrom('memberships')
            .innerJoin('groups', 'groups.uuid', 'memberships.group_uuid')
            .select(['memberships.user_id', 'groups.uuid', 'groups.name'])
            .where('memberships.user_id', 'in', userIds)
            .orderBy(sql`lower(groups.name)`)
            .orderBy('groups.uuid')
            .execute()
        : [];
      return collect(
        userIds,
        rows,
        (row) => row.user_id,
        ({ uuid, name }) => ({ uuid, name }),
      );
    },

    async usersByUuid(uuids: string[]): Promise<UserRow[]> {
      const wellFormed = [...new Set(uuids.filter((uuid) => UUID.test(uuid)).map((uuid) => uuid.toLowerCase()))];
      if (!wellFormed.length) return [];
      return db.selectFrom('users').select(USER_COLUMNS).where('uuid', 'in', wellFormed).execute();
    },
  };
}
