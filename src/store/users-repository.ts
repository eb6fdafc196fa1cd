/** Users: unique username and e-mail (case-insensitively), filters and trigram search, exact lookups, row locks. */
import { sql, type Kysely } from 'kysely';
import type { NewUser, Page, Slice, UserChanges, UserFilter, UserRow, UsersRepository } from './contract.js';
import type { Tables } from './tables.js';
import { likeContains, lowered, mapUnique } from './unique.js';
import { membershipsBy } from './memberships.js';
import { isStorableText } from './storable-text.js';
import { UUID } from '../uuid.js';
import { preparedLookup } from './prepared-statements.js';

export const USER_COLUMNS = [
  'id',
  'uuid',
  'username',
  'email',
  'name',
  'email_verified',
  'is_active',
  'attributes',
  'last_login',
  'created_at',
  'updated_at',
  'external_id',
] as const;

/** A user with the lower-cased names of its groups: the access-group check of every token request (prepared). */
const withGroups = preparedLookup<{ uuid: string }, UserRow & { groups: string[] }>(
  (db: Kysely<Tables>, { uuid }) =>
    db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .select((eb) =>
        sql<string[]>`array(${eb
          .selectFrom('memberships')
          .innerJoin('groups', 'groups.uuid', 'memberships.group_uuid')
          .select(sql<string>`lower(groups.name)`.as('name'))
          .whereRef('memberships.user_id', '=', 'users.id')
          .orderBy('name')})`.as('groups'),
      )
      .where('uuid', '=', uuid),
  ['uuid'],
);

export function usersRepository(db: Kysely<Tables>): UsersRepository {
  const filtered = (filter: UserFilter) => {
    let query = db.selectFrom('users');
    if (filter.email !== undefined) query = query.where(sql`lower(email)`, '=', lowered(filter.email));
    if (filter.is_active !== undefined) query = query.where('is_active', '=', filter.is_active);
    if (filter.search) {
      const pattern = likeContains(filter.search);
      query = query.where((eb) => eb.or([eb(sql`lower(name)`, 'like', pattern), eb(sql`lower(email)`, 'like', pattern)]));
    }
    if (filter.groups?.length) {
      const groups = filter.groups;
      query = query.where('id', 'in', db.selectFrom('memberships').select('user_id').where('group_uuid', 'in', groups));
    }
    return query;
  };

  return {
    insert: (user: NewUser) =>
      mapUnique(
        db
          .insertInto('users')
          .values({
            username: user.username,
            email: user.email,
            name: user.name,
            is_active: user.is_active ?? true,
            email_verified: user.email_verified ?? false,
            attributes: JSON.stringify(user.attributes ?? {}),
            password_hash: null,
            last_login: null,
            external_id: user.external_id ?? null,
          })
          .returning(USER_COLUMNS)
          .executeTakeFirstOrThrow(),
      ),

    findById: (id) => db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst(),

    // The uuid column refuses malformed text with an error; an unknown subject is simply absent.
    findByUuid: async (uuid) =>
      UUID.test(uuid) ? db.selectFrom('users').select(USER_COLUMNS).where('uuid', '=', uuid).executeTakeFirst() : undefined,

    async findByUuidWithGroups(uuid) {
      if (!UUID.test(uuid)) return undefined;
      const row = await withGroups(db, { uuid });
      if (!row) return undefined;
      const { groups, ...user } = row;
      return { user, groups };
    },

    findByEmail: async (email) =>
      isStorableText(email)
        ? db
            .selectFrom('users')
            .select(USER_COLUMNS)
            .where(sql`lower(email)`, '=', lowered(email))
            .executeTakeFirst()
        : undefined,

    lockById: (id) => db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst(),

    async list(filter: UserFilter, page: Page): Promise<Slice<UserRow>> {
      if (filter.search) {
        // A search reads its matches once, through the trigram indexes (materialized: with the page's ORDER BY id
        // LIMIT the planner would walk the primary key instead, through the whole table for a rare term), and
        // counts and pages them in the same statement.
        const rows = await db
          .with(
            (cte) => cte('matched').materialized(),
            () => filtered(filter).select(USER_COLUMNS),
          )
          .selectFrom('matched')
          .selectAll()
          .select(sql<number>`(select count(*) from matched)::int`.as('total'))
          .orderBy('id')
          .offset(page.offset)
          .limit(page.limit)
          .execute();
        if (rows.length) return { total: rows[0]!.total, rows: rows.map(({ total: _total, ...row }) => row as UserRow) };
        if (!page.offset) return { total: 0, rows: [] };
      }
      // The count and the page are independent reads: asked together, a list waits for the slower, not both.
      const [[{ total }], rows] = await Promise.all([
        filtered(filter)
          .select(sql<number>`count(*)::int`.as('total'))
          .execute(),
        filtered(filter).select(USER_COLUMNS).orderBy('id').offset(page.offset).limit(page.limit).execute(),
      ]);
      return { total: total!, rows };
    },

    update: (id, changes: UserChanges) => {
      const { attributes, ...plain } = changes;
      return mapUnique(
        db
          .updateTable('users')
          .set({ ...plain, ...(attributes ? { attributes: JSON.stringify(attributes) } : {}), updated_at: sql`now()` })
          .where('id', '=', id)
          .returning(USER_COLUMNS)
          .executeTakeFirst(),
      );
    },

    async delete(id) {
      const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    groupsOf: (ids) => membershipsBy(db, 'user_id', ids),
  };
}
