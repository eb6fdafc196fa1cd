/** Password hashes and sign-in bookkeeping, kept out of the users repository's row shape on purpose. */
import type { Kysely } from 'kysely';
import type { CredentialsRepository, UserRow } from './contract.js';
import type { Tables } from './tables.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const columns = [
  'id', 'uuid', 'username', 'email', 'name', 'email_verified', 'is_active', 'attributes', 'last_login', 'created_at', 'updated_at',
] as const;

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

    // The uuid column refuses malformed text with an error; an unknown subject is simply absent.
    findByUuid: async (uuid): Promise<UserRow | undefined> =>
      UUID.test(uuid) ? db.selectFrom('users').select(columns).where('uuid', '=', uuid).executeTakeFirst() : undefined,
  };
}
