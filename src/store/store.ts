/** Composes the repositories over one Kysely handle; a transaction gets the same store bound to it. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Store } from './contract.js';
import type { Tables } from './tables.js';
import { usersRepository } from './users-repository.js';
import { groupsRepository } from './groups-repository.js';
import { apiTokensRepository } from './api-tokens-repository.js';
import { oidcPayloadsRepository } from './oidc-payloads-repository.js';
import { signingKeysRepository } from './signing-keys-repository.js';
import { credentialsRepository } from './credentials-repository.js';
import { eventsRepository } from './events-repository.js';
import { mfaRepository } from './mfa-repository.js';
import { passwordSetupRepository } from './password-setup-repository.js';
import { auditRepository } from './audit-repository.js';
import { passkeysRepository } from './passkeys-repository.js';
import { checkRoom } from './write-room.js';
import { emailChangesRepository } from './email-changes-repository.js';
import { sourceLinksRepository } from './source-links-repository.js';
import { sessionDevicesRepository } from './session-devices-repository.js';
import { directoryRepository } from './directory-repository.js';
import { provisioningRepository } from './provisioning-repository.js';

export function createStore(db: Kysely<Tables>, inTransaction = false): Store {
  const store: Store = {
    audit: auditRepository(db),
    users: usersRepository(db),
    groups: groupsRepository(db),
    apiTokens: apiTokensRepository(db),
    oidcPayloads: oidcPayloadsRepository(db),
    signingKeys: signingKeysRepository(db),
    credentials: credentialsRepository(db),
    events: eventsRepository(db),
    mfa: mfaRepository(db),
    passwordSetup: passwordSetupRepository(db),
    passkeys: passkeysRepository(db),
    emailChanges: emailChangesRepository(db),
    sourceLinks: sourceLinksRepository(db),
    sessionDevices: sessionDevicesRepository(db),
    directory: directoryRepository(db),
    provisioning: provisioningRepository(db),
    state: {
      async claimOnce(key) {
        const result = await db
          .insertInto('instance_state')
          .values({ key })
          .onConflict((oc) => oc.column('key').doNothing())
          .executeTakeFirst();
        return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
      },
    },
    async sweepExpired(now) {
      return {
        oidcPayloads: await store.oidcPayloads.sweepExpired(now),
        passwordSetup: await store.passwordSetup.sweepExpired(now),
        challenges: await store.passkeys.sweepExpired(now),
        emailChanges: await store.emailChanges.sweepExpired(now),
        sessionDevices: await store.sessionDevices.sweep(new Date(now.getTime() - 60_000)),
      };
    },
    transaction: (work) => (inTransaction ? work(store) : db.transaction().execute((trx) => work(createStore(trx, true)))),
    async probe() {
      const id = randomUUID();
      await db.insertInto('readiness_probes').values({ id }).execute();
      const read = await db.selectFrom('readiness_probes').select('id').where('id', '=', id).executeTakeFirst();
      await db.deleteFrom('readiness_probes').where('id', '=', id).execute();
      if (!read) throw new Error('the readiness probe was written but not read back');
      await checkRoom(db);
    },
  };
  return store;
}
