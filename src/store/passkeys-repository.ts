/** Passkeys and WebAuthn challenges (contract.ts), over Kysely. */
import { sql, type Kysely } from 'kysely';
import type { PasskeyRow, PasskeysRepository } from './contract.js';
import type { Tables } from './tables.js';
import { isStorableText } from './storable-text.js';

const columns = [
  'id',
  'user_id',
  'public_key',
  'sign_count',
  'transports',
  'device_type',
  'backed_up',
  'name',
  'created_at',
  'last_used_at',
] as const;

type Stored = Omit<PasskeyRow, 'sign_count' | 'transports'> & { sign_count: string | number; transports: string };
const toRow = (row: Stored): PasskeyRow => ({
  ...row,
  sign_count: Number(row.sign_count),
  transports: row.transports ? row.transports.split(',') : [],
});

export function passkeysRepository(db: Kysely<Tables>): PasskeysRepository {
  return {
    async listForUser(userId) {
      const rows = await db
        .selectFrom('passkeys')
        .select(columns)
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toRow);
    },

    async find(id) {
      if (!isStorableText(id)) return undefined;
      const row = await db.selectFrom('passkeys').select(columns).where('id', '=', id).executeTakeFirst();
      return row && toRow(row);
    },

    async add(row) {
      const result = await db
        .insertInto('passkeys')
        .values({ ...row, transports: row.transports.join(','), sign_count: row.sign_count })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },

    async recordUse(id, expectedCount, newCount, backedUp, now) {
      const result = await db
        .updateTable('passkeys')
        .set({ sign_count: newCount, backed_up: backedUp, last_used_at: now })
        .where('id', '=', id)
        .where('sign_count', '=', String(expectedCount))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async rename(userId, id, name) {
      if (!isStorableText(id)) return false;
      const result = await db.updateTable('passkeys').set({ name }).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async remove(userId, id) {
      if (!isStorableText(id)) return false;
      const result = await db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async removeAll(userId) {
      const result = await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    // One statement: the delete sees the rows from before the insert, so the new challenge is never among them.
    async saveChallenge(challenge, purpose, expiresAt, keep) {
      await db
        .with('saved', (qb) =>
          qb.insertInto('webauthn_challenges').values({ challenge, purpose, expires_at: expiresAt }).returning('challenge'),
        )
        .deleteFrom('webauthn_challenges')
        .where('purpose', '=', purpose)
        .where('challenge', 'not in', (eb) =>
          eb
            .selectFrom('webauthn_challenges')
            .select('challenge')
            .where('purpose', '=', purpose)
            .orderBy('expires_at', 'desc')
            .orderBy('challenge')
            .limit(Math.max(0, keep - 1)),
        )
        .execute();
    },

    async consumeChallenge(challenge, purpose, now) {
      if (!isStorableText(challenge)) return false;
      const result = await db
        .deleteFrom('webauthn_challenges')
        .where('challenge', '=', challenge)
        .where('purpose', '=', purpose)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async sweepExpired(now) {
      const result = await db
        .deleteFrom('webauthn_challenges')
        .where('expires_at', '<', sql<Date>`${now}::timestamptz`)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
