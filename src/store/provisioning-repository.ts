/** Outbound provisioning: which remote SCIM resource stands for each local user or group, per application. */
import type { Kysely } from 'kysely';
import type { ProvisioningRepository } from './contract.js';
import type { Tables } from './tables.js';

export function provisioningRepository(db: Kysely<Tables>): ProvisioningRepository {
  return {
    async remoteId(app, kind, localId) {
      const row = await db
        .selectFrom('scim_links')
        .select('remote_id')
        .where('app', '=', app)
        .where('kind', '=', kind)
        .where('local_id', '=', localId)
        .executeTakeFirst();
      return row?.remote_id;
    },

    async link(app, kind, localId, remoteId) {
      await db
        .insertInto('scim_links')
        .values({ app, kind, local_id: localId, remote_id: remoteId })
        .onConflict((oc) => oc.columns(['app', 'kind', 'local_id']).doUpdateSet({ remote_id: remoteId }))
        .execute();
    },

    async unlink(app, kind, localId) {
      await db.deleteFrom('scim_links').where('app', '=', app).where('kind', '=', kind).where('local_id', '=', localId).execute();
    },
  };
}
