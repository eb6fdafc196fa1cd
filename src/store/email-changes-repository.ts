/** Pending e-mail address changes (contract.ts), over Kysely. */
import type { Kysely } from 'kysely';
import type { EmailChangesRepository } from './contract.js';
import type { Tables } from './tables.js';

const columns = ['user_id', 'email', 'code_hash', 'attempts', 'expires_at'] as const;

export function emailChangesRepository(db: Kysely<Tables>): EmailChangesRepository {
  return {
    async save(row) {
      await db
        .insertInto('email_changes')
        .values({ ...row, attempts: 0 })
        .onConflict((oc) =>
          oc.column('user_id').doUpdateSet({ email: row.email, code_hash: row.code_hash, expires_at: row.expires_at, attempts: 0 }),
        )
        .execute();
    },

    find: (userId, now) =>
      db.selectFrom('email_changes').select(columns).where('user_id', '=', userId).where('expires_at', '>', now).executeTakeFirst(),

    async countAttempt(userId, maxAttempts, now) {
      const row = await db
        .updateTable('email_changes')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .where('attempts', '<', maxAttempts)
        .returning(columns)
        .executeTakeFirst();
      return row ? { ...row, attempts: row.attempts - 1 } : undefined;
    },

    async consume(userId, codeHash, now) {
      const row = await db
        .deleteFrom('email_changes')
        .where('user_id', '=', userId)
        .where('code_hash', '=', codeHash)
        .where('expires_at', '>', now)
        .returning('email')
        .executeTakeFirst();
      return row?.email;
    },

    async cancel(userId) {
      const result = await db.deleteFrom('email_changes').where('user_id', '=', userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async sweepExpired(now) {
      const result = await db.deleteFrom('email_changes').where('expires_at', '<', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
