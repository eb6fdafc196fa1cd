/**
 * What two replicas of one database must never disagree on, whatever each keeps in memory (src/store/replica/):
 * a change committed at one is not answered from memory at the other, even in the same millisecond; a consume made
 * at one is decided in the database when the other redeems; and a lost change notice makes memory answer nothing.
 * On the bare store these hold trivially (there is no memory); on the replica backend they are the cache's rules.
 */
import { sql } from 'kysely';
import type { OidcPayload, Store } from '../../../src/store/contract.js';
import { LISTENER_NAME } from '../../../src/store/change-feed.js';
import { secondClient, useDatabase, user, type Backend, type Open } from './fixture.js';

const row = (model: string, id: string, extra: Partial<OidcPayload> = {}): Omit<OidcPayload, 'consumed_at'> => ({
  model,
  id,
  payload: { jti: id },
  grant_id: null,
  user_code: null,
  uid: null,
  account_id: null,
  client_id: null,
  expires_at: new Date(Date.now() + 60_000),
  ...extra,
});

export function runReplicasConformance(open: Open, backend: Backend): void {
  // Two replicas are two sessions at once; PGlite is one session in one process: there is no second replica.
  (backend.concurrentSessions ? describe : describe.skip)('two replicas of one database', () => {
    const t = useDatabase(open);
    let other: { store: Store; close(): Promise<void> };
    beforeAll(async () => {
      other = await secondClient(t.db);
    });
    afterAll(async () => other?.close());

    test('what one replica revokes, deactivates or ends, the other does not answer from memory, at once', async () => {
      await t.store.oidcPayloads.upsert(row('AccessToken', 'rep-at', { grant_id: 'rep-g' }));
      await t.store.oidcPayloads.upsert(row('Session', 'rep-session'));
      const person = await t.store.users.insert(user('replica-1'));
      // The other replica reads them, and so keeps them.
      expect(await other.store.oidcPayloads.find('AccessToken', 'rep-at', new Date())).toBeDefined();
      expect(await other.store.oidcPayloads.find('Session', 'rep-session', new Date())).toBeDefined();
      expect((await other.store.users.findByUuidWithGroups(person.uuid))?.user.is_active).toBe(true);

      await t.store.oidcPayloads.revokeByGrantId('rep-g');
      expect(await other.store.oidcPayloads.find('AccessToken', 'rep-at', new Date())).toBeUndefined();
      await t.store.oidcPayloads.destroy('Session', 'rep-session');
      expect(await other.store.oidcPayloads.find('Session', 'rep-session', new Date())).toBeUndefined();
      await t.store.users.update(person.id, { is_active: false });
      expect((await other.store.users.findByUuidWithGroups(person.uuid))?.user.is_active).toBe(false);
    });

    test('a consume made at one replica is decided in the database when the other redeems, and `find` tells it', async () => {
      await t.store.oidcPayloads.upsert(row('RefreshToken', 'rep-rt', { grant_id: 'rep-g2' }));
      expect((await other.store.oidcPayloads.findToRedeem('RefreshToken', 'rep-rt', new Date()))?.consumed_at).toBeNull();
      const first = await t.store.oidcPayloads.redeem(
        { model: 'RefreshToken', id: 'rep-rt' },
        [row('AccessToken', 'rep-at-1')],
        new Date(),
      );
      expect(first.won).toBe(true);
      // `findToRedeem` may still answer the copy from before; `find` may not.
      expect((await other.store.oidcPayloads.find('RefreshToken', 'rep-rt', new Date()))?.consumed_at).toBeInstanceOf(Date);
      const second = await other.store.oidcPayloads.redeem(
        { model: 'RefreshToken', id: 'rep-rt' },
        [row('AccessToken', 'rep-at-2')],
        new Date(),
      );
      expect(second).toEqual({ won: false, inserted: [] });
      expect(await t.store.oidcPayloads.find('AccessToken', 'rep-at-2', new Date())).toBeUndefined();
    });

    test("a change notice lost with the other replica's listening connection: memory answers nothing the change touched", async () => {
      await t.store.oidcPayloads.upsert(row('AccessToken', 'rep-at-lost', { grant_id: 'rep-g3' }));
      expect(await other.store.oidcPayloads.find('AccessToken', 'rep-at-lost', new Date())).toBeDefined();
      // The newest listening connection is the other replica's (it was opened after this one's).
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = ${LISTENER_NAME} and datname = current_database()
        order by backend_start desc limit 1`.execute(t.db.database.db);
      await t.store.oidcPayloads.revokeByGrantId('rep-g3');
      expect(await other.store.oidcPayloads.find('AccessToken', 'rep-at-lost', new Date())).toBeUndefined();
    });
  });
}
