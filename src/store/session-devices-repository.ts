/** The browsers of the engine's sessions (contract.ts), over Kysely. */
import { sql, type Kysely } from 'kysely';
import type { SessionDevicesRepository } from './contract.js';
import type { Tables } from './tables.js';

export function sessionDevicesRepository(db: Kysely<Tables>): SessionDevicesRepository {
  return {
    async seen(sessionId, userUuid, userAgent, now) {
      await db
        .insertInto('session_devices')
        .values({ session_id: sessionId, user_uuid: userUuid, user_agent: userAgent, first_seen: now, last_seen: now })
        .onConflict((conflict) => conflict.column('session_id').doUpdateSet({ last_seen: now }))
        .execute();
    },

    list: async (sessionIds) =>
      sessionIds.length ? db.selectFrom('session_devices').selectAll().where('session_id', 'in', sessionIds).execute() : [],

    async sweep(before) {
      const result = await db
        .deleteFrom('session_devices')
        .where('last_seen', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('oidc_payloads')
                .select(sql`1`.as('one'))
                .where('model', '=', 'Session')
                .whereRef('oidc_payloads.id', '=', 'session_devices.session_id'),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
