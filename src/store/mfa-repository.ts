/** TOTP credentials and recovery codes (contract.ts), over Kysely. */
import { sql, type Kysely } from 'kysely';
import type { MfaRepository } from './contract.js';
import type { Tables } from './tables.js';
import { stampOnce } from './stamp-once.js';

export function mfaRepository(db: Kysely<Tables>): MfaRepository {
  return {
    findTotp: (userId) =>
      db
        .selectFrom('totp_credentials')
        .select(['user_id', 'encrypted_secret', 'confirmed_at'])
        .where('user_id', '=', userId)
        .executeTakeFirst(),

    async savePendingTotp(userId, encryptedSecret) {
      const result = await db
        .insertInto('totp_credentials')
        .values({ user_id: userId, encrypted_secret: encryptedSecret, confirmed_at: null, last_used_step: -1 })
        .onConflict((oc) =>
          oc
            .column('user_id')
            .doUpdateSet({ encrypted_secret: encryptedSecret, last_used_step: -1, created_at: sql`now()` })
            .where('totp_credentials.confirmed_at', 'is', null),
        )
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },

    async useTotpStep(userId, step, confirm, now) {
      let query = db
        .updateTable('totp_credentials')
        .set(confirm ? { last_used_step: step, confirmed_at: now } : { last_used_step: step })
        .where('user_id', '=', userId)
        .where('last_used_step', '<', String(step));
      query = confirm ? query.where('confirmed_at', 'is', null) : query.where('confirmed_at', 'is not', null);
      const result = await query.executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async replaceRecoveryCodes(userId, codeHashes) {
      const replace = async (trx: Kysely<Tables>) => {
        await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
        if (codeHashes.length) {
          await trx
            .insertInto('recovery_codes')
            .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null })))
            .execute();
        }
      };
      await (db.isTransaction ? replace(db) : db.transaction().execute(replace));
    },

    consumeRecoveryCode: (userId, codeHash, now) =>
      stampOnce(db, 'recovery_codes', 'used_at', now, (query) => query.where('user_id', '=', userId).where('code_hash', '=', codeHash)),

    async recoveryCodesLeft(userId) {
      const row = await db
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async removeAll(userId) {
      const remove = async (trx: Kysely<Tables>) => {
        const totp = await trx.deleteFrom('totp_credentials').where('user_id', '=', userId).executeTakeFirst();
        const codes = await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).executeTakeFirst();
        return totp.numDeletedRows + codes.numDeletedRows > 0n;
      };
      return db.isTransaction ? remove(db) : db.transaction().execute(remove);
    },
  };
}
