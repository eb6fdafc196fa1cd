/** Storage for the oidc-provider adapter: one table for every model, keyed by (model, id). */
import { sql, type Kysely } from 'kysely';
import type { OidcPayload, OidcPayloadsRepository } from './contract.js';
import type { Tables } from './tables.js';
import { isStorableText } from './storable-text.js';
import { preparedLookup } from './prepared-statements.js';
import { redeemTogether, type RedeemCall } from './redeem-together.js';
import { batchCalls } from '../batch-calls.js';
import { modelsThat } from './oidc-models.js';

/** Models the engine revokes by grant id (its memory adapter's `grantable`). */
const GRANT_BOUND = modelsThat('grantBound');

const columns = ['model', 'id', 'payload', 'grant_id', 'user_code', 'uid', 'account_id', 'client_id', 'expires_at', 'consumed_at'] as const;

const liveRow = (db: Kysely<Tables>, model: string, now: Date) =>
  db
    .selectFrom('oidc_payloads')
    .select(columns)
    .where('model', '=', model)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));

type Lookup = { model: string; now: Date; key: string };
/** Every token request finds by id, every request with a session cookie by uid: prepared lookups. */
const lookups = {
  id: preparedLookup<Lookup, OidcPayload>((db, v) => liveRow(db, v.model, v.now).where('id', '=', v.key), ['model', 'now', 'key']),
  uid: preparedLookup<Lookup, OidcPayload>((db, v) => liveRow(db, v.model, v.now).where('uid', '=', v.key), ['model', 'now', 'key']),
};

type SavedRow = Omit<OidcPayload, 'payload' | 'consumed_at'> & { payload: string };
const SAVED = ['model', 'id', 'payload', 'grant_id', 'user_code', 'uid', 'account_id', 'client_id', 'expires_at'] as const;
/** The engine's single saves (every sign-in's interaction, twice): prepared. A new row starts unconsumed. */
const saveRow = preparedLookup<SavedRow, never>(
  (db: Kysely<Tables>, v) =>
    db
      .insertInto('oidc_payloads')
      .values(v)
      .onConflict((oc) =>
        oc
          .columns(['model', 'id'])
          .doUpdateSet((eb) =>
            Object.fromEntries(
              SAVED.filter((column) => column !== 'model' && column !== 'id').map((column) => [column, eb.ref(`excluded.${column}`)]),
            ),
          ),
      ),
  [...SAVED],
);

export function oidcPayloadsRepository(db: Kysely<Tables>): OidcPayloadsRepository {
  /** A key PostgreSQL cannot hold names no row: answered without asking (the query would fail). */
  const findBy = async (column: 'id' | 'uid' | 'user_code', model: string, key: string, now: Date): Promise<OidcPayload | undefined> => {
    if (!isStorableText(key)) return undefined;
    if (column !== 'user_code') return lookups[column](db, { model, now, key });
    return liveRow(db, model, now).where(column, '=', key).executeTakeFirst() as Promise<OidcPayload | undefined>;
  };

  // The token requests answered in one turn of the event loop write in one statement (redeem-together.ts).
  const redeemSoon = batchCalls((calls: RedeemCall[]) => redeemTogether(db, calls), 16);

  const repository: OidcPayloadsRepository = {
    async upsert(row) {
      await saveRow(db, { ...row, payload: JSON.stringify(row.payload) });
    },

    find: (model, id, now) => findBy('id', model, id, now),
    // The database is always current: what a replica may skip (replica/replica-store.ts) it never has to.
    findToRedeem: (model, id, now) => findBy('id', model, id, now),
    findByUid: (model, uid, now) => findBy('uid', model, uid, now),
    findByUserCode: (model, userCode, now) => findBy('user_code', model, userCode, now),

    async consume(model, id, now) {
      if (!isStorableText(id)) return false;
      // Compare-and-set: only the caller that flips consumed_at from null wins.
      const result = await db
        .updateTable('oidc_payloads')
        .set({ consumed_at: now })
        .where('model', '=', model)
        .where('id', '=', id)
        .where('consumed_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async redeem(consume, rows, now) {
      if (consume && !isStorableText(consume.id)) return { won: false, inserted: [] };
      if (!rows.length) return { won: consume ? await repository.consume(consume.model, consume.id, now) : true, inserted: [] };
      return redeemSoon({ consume, rows, now });
    },

    async destroy(model, id) {
      if (!isStorableText(id)) return;
      await db.deleteFrom('oidc_payloads').where('model', '=', model).where('id', '=', id).execute();
    },

    async revokeByGrantId(grantId) {
      await db.deleteFrom('oidc_payloads').where('grant_id', '=', grantId).where('model', 'in', GRANT_BOUND).execute();
    },

    async revokeClientGrants(accountId, clientIds, now) {
      if (!clientIds.length) return [];
      const deleted = await db
        .deleteFrom('oidc_payloads')
        .where('account_id', '=', accountId)
        .where('client_id', 'in', clientIds)
        .where('model', 'in', ['Grant', ...GRANT_BOUND])
        .returning(['model', 'client_id', 'expires_at'])
        .execute();
      const live = deleted.filter((row) => row.model === 'Grant' && (!row.expires_at || row.expires_at > now));
      return [...new Set(live.map((row) => row.client_id!))].sort();
    },

    async grantedClients(accountId, now) {
      const rows = await db
        .selectFrom('oidc_payloads')
        .select('client_id')
        .distinct()
        .where('model', '=', 'Grant')
        .where('account_id', '=', accountId)
        .where('client_id', 'is not', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('client_id')
        .execute();
      return rows.map((row) => row.client_id!);
    },

    findByAccount: (model, accountId, now) =>
      liveRow(db, model, now).where('account_id', '=', accountId).orderBy('id').execute() as Promise<OidcPayload[]>,

    async destroyByAccount(accountId, keepSessionUid) {
      let query = db.deleteFrom('oidc_payloads').where('account_id', '=', accountId);
      if (keepSessionUid) query = query.where((eb) => eb.not(eb.and([eb('model', '=', 'Session'), eb('uid', '=', keepSessionUid)])));
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async sweepExpired(now) {
      const result = await db
        .deleteFrom('oidc_payloads')
        .where('expires_at', '<', sql<Date>`${now}::timestamptz`)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
  return repository;
}
