/** Links between upstream identities and users (contract.ts), over Kysely. */
import type { Kysely } from 'kysely';
import type { SourceLinksRepository } from './contract.js';
import type { Tables } from './tables.js';
import { mapUnique } from './unique.js';

const columns = ['source', 'subject', 'user_id', 'created_at', 'last_used_at'] as const;

export function sourceLinksRepository(db: Kysely<Tables>): SourceLinksRepository {
  return {
    insert: (link) => mapUnique(db.insertInto('source_links').values(link).returning(columns).executeTakeFirstOrThrow()),

    find: (source, subject) =>
      db.selectFrom('source_links').select(columns).where('source', '=', source).where('subject', '=', subject).executeTakeFirst(),

    listForUser: (userId) => db.selectFrom('source_links').select(columns).where('user_id', '=', userId).orderBy('source').execute(),

    async touch(source, subject, now) {
      const result = await db
        .updateTable('source_links')
        .set({ last_used_at: now })
        .where('source', '=', source)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async remove(userId, source) {
      const result = await db.deleteFrom('source_links').where('user_id', '=', userId).where('source', '=', source).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
