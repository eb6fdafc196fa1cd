/** Signing keys shared by every replica; the private JWK arrives already encrypted. */
import { sql, type Kysely } from 'kysely';
import type { SigningKeysRepository } from './contract.js';
import type { Tables } from './tables.js';

export function signingKeysRepository(db: Kysely<Tables>): SigningKeysRepository {
  return {
    list: () =>
      db
        .selectFrom('signing_keys')
        .selectAll()
        .orderBy(sql`case when state = 'active' then 0 else 1 end`)
        .orderBy('created_at', 'desc')
        .orderBy('kid')
        .execute(),

    async activate(key, now) {
      const flip = async (trx: Kysely<Tables>) => {
        await trx.updateTable('signing_keys').set({ state: 'retired', retired_at: now }).where('state', '=', 'active').execute();
        await trx
          .insertInto('signing_keys')
          .values({ ...key, state: 'active', retired_at: null })
          .execute();
      };
      await (db.isTransaction ? flip(db) : db.transaction().execute(flip));
    },

    async insertFirst(key) {
      // The partial unique index on the active state makes a second concurrent first key a no-op.
      const result = await db
        .insertInto('signing_keys')
        .values({ ...key, state: 'active', retired_at: null })
        .onConflict((oc) => oc.column('state').where('state', '=', 'active').doNothing())
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },
  };
}
