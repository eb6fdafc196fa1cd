/** Password hashes and sign-in bookkeeping, kept out of the users repository's row shape on purpose. */
import type { Kysely } from 'kysely';
import type { CredentialsRepository } from './contract.js';
import type { Tables } from './tables.js';

export function credentialsRepository(db: Kysely<Tables>): CredentialsRepository {
  return {
    async passwordHash(userId) {
      const row = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
      return row ? row.password_hash : undefined;
    },

    async setPasswordHash(userId, hash) {
      const result = await db.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async recordLogin(userId, at) {
      await db.updateTable('users').set({ last_login: at }).where('id', '=', userId).execute();
    },
  };
}
