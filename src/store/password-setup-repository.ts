/** E-mailed setup codes and admin recovery links (contract.ts), over Kysely. */
import type { Kysely } from 'kysely';
import type { PasswordSetupRepository } from './contract.js';
import type { Tables } from './tables.js';
import { stampOnce } from './stamp-once.js';

const codeColumns = ['id', 'user_id', 'code_hash', 'attempts', 'expires_at', 'used_at'] as const;

export function passwordSetupRepository(db: Kysely<Tables>): PasswordSetupRepository {
  return {
    async saveCode(row) {
      await db
        .insertInto('password_setup_codes')
        .values({ ...row, attempts: 0, used_at: null })
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet({ user_id: row.user_id, code_hash: row.code_hash, expires_at: row.expires_at, attempts: 0, used_at: null }),
        )
        .execute();
    },

    findCode: (id) => db.selectFrom('password_setup_codes').select(codeColumns).where('id', '=', id).executeTakeFirst(),

    async countAttempt(id, maxAttempts, now) {
      const row = await db
        .updateTable('password_setup_codes')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .where('attempts', '<', maxAttempts)
        .returning(codeColumns)
        .executeTakeFirst();
      return row ? { ...row, attempts: row.attempts - 1 } : undefined;
    },

    consumeCode: (id, now) => stampOnce(db, 'password_setup_codes', 'used_at', now, (query) => query.where('id', '=', id)),

    async saveLink(row) {
      await db
        .insertInto('recovery_links')
        .values({ ...row, used_at: null })
        .execute();
    },

    async withdrawInvitations(userId, now) {
      const withdrawn = await db
        .updateTable('recovery_links')
        .set({ used_at: now })
        .where('user_id', '=', userId)
        .where('purpose', '=', 'invitation')
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(withdrawn.numUpdatedRows);
    },

    async findLink(tokenHash, now) {
      const row = await db
        .selectFrom('recovery_links')
        .select('user_id')
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return row?.user_id;
    },

    async consumeLink(tokenHash, now) {
      const row = await db
        .updateTable('recovery_links')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('user_id')
        .executeTakeFirst();
      return row?.user_id;
    },

    async sweepExpired(now) {
      const codes = await db.deleteFrom('password_setup_codes').where('expires_at', '<', now).executeTakeFirst();
      const links = await db.deleteFrom('recovery_links').where('expires_at', '<', now).executeTakeFirst();
      return Number(codes.numDeletedRows + links.numDeletedRows);
    },
  };
}
