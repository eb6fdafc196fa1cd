/** Signing keys shared by every replica, one active key per algorithm; the private JWK arrives already encrypted. */
import { sql, type Kysely } from 'kysely';
import { SIGNING_ALGS } from '../settings/signing-algorithms.js';
import type { SigningKeysRepository } from './contract.js';
import type { Tables } from './tables.js';

/** The algorithm's place in SIGNING_ALGS, so every list (and the engine's discovery document) names RS256 first. */
const algRank = sql<number>`case alg ${sql.join(
  SIGNING_ALGS.map((alg, rank) => sql`when ${sql.lit(alg)} then ${sql.lit(rank)}`),
  sql` `,
)} end`;

export function signingKeysRepository(db: Kysely<Tables>): SigningKeysRepository {
  return {
    list: () =>
      db
        .selectFrom('signing_keys')
        .selectAll()
        .orderBy(sql`case when state = 'active' then 0 else 1 end`)
        .orderBy(algRank)
        .orderBy('created_at', 'desc')
        .orderBy('kid')
        .execute(),

    async activate(keys, now) {
      const flip = async (trx: Kysely<Tables>) => {
        for (const key of keys) {
          await trx
            .updateTable('signing_keys')
            .set({ state: 'retired', retired_at: now })
            .where('state', '=', 'active')
            .where('alg', '=', key.alg)
            .execute();
          await trx
            .insertInto('signing_keys')
            .values({ ...key, state: 'active', retired_at: null })
            .execute();
        }
      };
      await (db.isTransaction ? flip(db) : db.transaction().execute(flip));
    },

    async insertFirst(key) {
      // The partial unique index on each algorithm's active key makes a second concurrent first key a no-op.
      const result = await db
        .insertInto('signing_keys')
        .values({ ...key, state: 'active', retired_at: null })
        .onConflict((oc) => oc.column('alg').where('state', '=', 'active').doNothing())
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },
  };
}
