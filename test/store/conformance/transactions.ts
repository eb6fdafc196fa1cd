/**
 * Store.transaction: all of its writes land or none, across every repository; nested calls join the outer
 * transaction; row locks taken in one make a second locker wait until it ends.
 */
import { randomUUID } from 'node:crypto';
import { UniqueViolation, type Store } from '../../../src/store/contract.js';
import { secondClient, useDatabase, user, type Backend, type Open } from './fixture.js';

export function runTransactionConformance(open: Open, backend: Backend): void {
  describe('transactions', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });

    const emailTaken = async (email: string) => (await store.users.list({ email }, { offset: 0, limit: 1 })).total > 0;

    test('a failing transaction writes nothing', async () => {
      await expect(
        store.transaction(async (tx) => {
          await tx.users.insert(user('tx-rollback'));
          await tx.groups.insert({ name: 'tx-rollback' });
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect((await store.users.list({ email: 'usertx-rollback@example.com' }, { offset: 0, limit: 1 })).total).toBe(0);
      expect((await store.groups.list({ search: 'tx-rollback' }, { offset: 0, limit: 1 })).total).toBe(0);
    });

    test('all or nothing across repositories: a user, its membership, an outbox event and payloads vanish with a refused write', async () => {
      await store.users.insert(user('tx-taken'));
      const group = await store.groups.insert({ name: 'tx-across' });
      const event = { id: randomUUID(), type: 'user_updated', body: '{}' };
      let created: number | undefined;
      await expect(
        store.transaction(async (tx) => {
          const row = await tx.users.insert(user('tx-across'));
          created = row.id;
          await tx.groups.addMember(group.uuid, row.id);
          await tx.events.append({ ...event, user_uuid: row.uuid });
          await tx.oidcPayloads.upsert({
            model: 'Session',
            id: 'tx-across',
            payload: {},
            grant_id: null,
            user_code: null,
            uid: null,
            account_id: row.uuid,
            client_id: null,
            expires_at: null,
          });
          await tx.credentials.setPasswordHash(row.id, '$2b$04$tx');
          await tx.state.claimOnce('tx-across');
          await tx.users.insert(user('tx-taken-again', { email: 'usertx-taken@example.com' })); // refused: the e-mail exists
        }),
      ).rejects.toEqual(new UniqueViolation('email'));

      expect(await emailTaken('usertx-across@example.com')).toBe(false);
      expect(await store.users.findById(created!)).toBeUndefined();
      expect((await store.groups.membersOf([group.uuid])).get(group.uuid)).toEqual([]);
      expect(await store.events.find(event.id)).toBeUndefined();
      expect(await store.oidcPayloads.find('Session', 'tx-across', new Date())).toBeUndefined();
      expect(await store.state.claimOnce('tx-across')).toBe(true); // the claim rolled back too
    });

    test('a committed transaction keeps all writes; nested calls join it', async () => {
      await store.transaction(async (tx) => {
        const u = await tx.users.insert(user('tx-commit'));
        await tx.transaction(async (inner) => inner.groups.addMember((await inner.groups.insert({ name: 'tx-commit' })).uuid, u.id));
      });
      const { rows } = await store.users.list({ email: 'usertx-commit@example.com' }, { offset: 0, limit: 1 });
      expect((await store.users.groupsOf([rows[0]!.id])).get(rows[0]!.id)).toHaveLength(1);
    });

    test('a nested call does not commit on its own: the outer failure undoes the inner writes', async () => {
      const event = { id: randomUUID(), type: 'user_updated', body: '{}' };
      await expect(
        store.transaction(async (tx) => {
          await tx.transaction(async (inner) => {
            await inner.users.insert(user('tx-nested'));
            await inner.events.append(event);
          });
          throw new Error('outer fails after the nested call returned');
        }),
      ).rejects.toThrow('outer fails');
      expect(await emailTaken('usertx-nested@example.com')).toBe(false);
      expect(await store.events.find(event.id)).toBeUndefined();
    });

    test('the value of `work` is the value of the transaction', async () => {
      await expect(store.transaction(async (tx) => (await tx.users.insert(user('tx-value'))).email)).resolves.toBe(
        'usertx-value@example.com',
      );
    });

    test("every write method that opens a transaction of its own joins the caller's instead", async () => {
      const row = await store.users.insert(user('tx-joined'));
      await expect(
        store.transaction(async (tx) => {
          await tx.mfa.savePendingTotp(row.id, 'v1.tx');
          await tx.mfa.replaceRecoveryCodes(row.id, ['tx-code']);
          await tx.signingKeys.activate([{ kid: 'tx-key', alg: 'ES256', encrypted_jwk: 'x' }], new Date());
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await store.mfa.findTotp(row.id)).toBeUndefined();
      expect(await store.mfa.recoveryCodesLeft(row.id)).toBe(0);
      expect((await store.signingKeys.list()).map((key) => key.kid)).not.toContain('tx-key');
    });

    test('lockById and lockByUuid hold the row until the transaction ends: a second locker waits for it', async () => {
      const u = await store.users.insert(user('locked'));
      const g = await store.groups.insert({ name: 'locked group' });
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = store.transaction(async (tx) => {
        expect((await tx.users.lockById(u.id))?.id).toBe(u.id);
        expect((await tx.groups.lockByUuid(g.uuid))?.uuid).toBe(g.uuid);
        await held;
        await tx.users.update(u.id, { name: 'Changed by the first' });
        order.push('first');
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = store.transaction(async (tx) => {
        const row = await tx.users.lockById(u.id);
        order.push('second');
        return row;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      const [, seen] = await Promise.all([first, second]);
      expect(order).toEqual(['first', 'second']);
      expect(seen?.name).toBe('Changed by the first');
      expect(await store.users.lockById(999_999)).toBeUndefined();
    });

    // Needs two sessions at once; PGlite is one session (the second transaction waits for the first to end, whatever it locks).
    (backend.concurrentSessions ? test : test.skip)(
      "a group lock held by one session makes another session's lockByUuid wait; other rows do not",
      async () => {
        const other = await secondClient(t.db);
        try {
          const g = await store.groups.insert({ name: 'locked elsewhere' });
          const free = await store.groups.insert({ name: 'not locked' });
          const order: string[] = [];
          let release!: () => void;
          const held = new Promise<void>((resolve) => (release = resolve));
          const first = store.transaction(async (tx) => {
            await tx.groups.lockByUuid(g.uuid);
            await held;
            order.push('first ends');
          });
          await new Promise((resolve) => setTimeout(resolve, 50));
          await other.store.transaction(async (tx) => {
            await tx.groups.lockByUuid(free.uuid);
            order.push('other row locked at once');
          });
          const second = other.store.transaction(async (tx) => {
            await tx.groups.lockByUuid(g.uuid);
            order.push('second locked');
          });
          await new Promise((resolve) => setTimeout(resolve, 100));
          release();
          await Promise.all([first, second]);
          expect(order).toEqual(['other row locked at once', 'first ends', 'second locked']);
        } finally {
          await other.close();
        }
      },
    );
  });
}
