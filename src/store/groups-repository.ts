/** Groups and memberships: names unique case-insensitively, trigram search, exact lookups by name. */
import { sql, type Kysely } from 'kysely';
import type { GroupFilter, GroupRow, GroupsRepository, Page, Slice } from './contract.js';
import type { Tables } from './tables.js';
import { likeContains, lowered, mapUnique } from './unique.js';
import { membershipsBy } from './memberships.js';

export function groupsRepository(db: Kysely<Tables>): GroupsRepository {
  const filtered = (filter: GroupFilter) => {
    let query = db.selectFrom('groups');
    if (filter.search) query = query.where(sql`lower(name)`, 'like', likeContains(filter.search));
    return query;
  };

  return {
    insert: (group) =>
      mapUnique(
        db
          .insertInto('groups')
          .values({ name: group.name, attributes: JSON.stringify(group.attributes ?? {}), external_id: group.external_id ?? null })
          .returningAll()
          .executeTakeFirstOrThrow(),
      ),

    findByUuid: (uuid) => db.selectFrom('groups').selectAll().where('uuid', '=', uuid).executeTakeFirst(),

    findByName: (name) =>
      db
        .selectFrom('groups')
        .selectAll()
        .where(sql`lower(name)`, '=', lowered(name))
        .executeTakeFirst(),

    comparableName: async (name) => (await sql<{ name: string }>`select ${lowered(name)} as name`.execute(db)).rows[0]!.name,

    lockByUuid: (uuid) => db.selectFrom('groups').selectAll().where('uuid', '=', uuid).forUpdate().executeTakeFirst(),

    async missing(uuids) {
      if (!uuids.length) return [];
      const found = await db.selectFrom('groups').select('uuid').where('uuid', 'in', uuids).execute();
      const known = new Set(found.map((row) => row.uuid));
      return [...new Set(uuids)].filter((uuid) => !known.has(uuid));
    },

    async list(filter: GroupFilter, page: Page): Promise<Slice<GroupRow>> {
      const [{ total }] = await filtered(filter)
        .select(sql<number>`count(*)::int`.as('total'))
        .execute();
      const rows = await filtered(filter)
        .selectAll()
        .orderBy(sql`lower(name)`)
        .orderBy('uuid')
        .offset(page.offset)
        .limit(page.limit)
        .execute();
      return { total, rows };
    },

    update: (uuid, changes) => {
      const values = {
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.attributes !== undefined ? { attributes: JSON.stringify(changes.attributes) } : {}),
        ...(changes.external_id !== undefined ? { external_id: changes.external_id } : {}),
      };
      if (!Object.keys(values).length) return db.selectFrom('groups').selectAll().where('uuid', '=', uuid).executeTakeFirst();
      return mapUnique(
        db
          .updateTable('groups')
          .set({ ...values, updated_at: sql`now()` })
          .where('uuid', '=', uuid)
          .returningAll()
          .executeTakeFirst(),
      );
    },

    async delete(uuid) {
      const result = await db.deleteFrom('groups').where('uuid', '=', uuid).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async addMember(groupUuid, userId) {
      const result = await db
        .insertInto('memberships')
        .values({ group_uuid: groupUuid, user_id: userId })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },

    async removeMember(groupUuid, userId) {
      const result = await db
        .deleteFrom('memberships')
        .where('group_uuid', '=', groupUuid)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    membersOf: (uuids) => membershipsBy(db, 'group_uuid', uuids),
  };
}
