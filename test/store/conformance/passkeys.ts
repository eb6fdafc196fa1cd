/**
 * PasskeysRepository: passkeys belong to one user (rename and remove touch only the owner's), the sign counter
 * moves by compare-and-set (of racing uses one wins), and a challenge is spent once, for its purpose, while live.
 */
import type { Store } from '../../../src/store/contract.js';
import { race, useDatabase, type Open } from './fixture.js';

export function runPasskeysConformance(open: Open): void {
  describe('passkeys', () => {
    const t = useDatabase(open);
    let store: Store;
    let n = 0;
    const newUser = async () => {
      const email = `passkey${++n}@example.com`;
      return store.users.insert({ username: email, email, name: 'Test' });
    };
    const passkey = (id: string, userId: number) => ({
      id,
      user_id: userId,
      public_key: 'pQECAyYgASFY',
      sign_count: 0,
      transports: ['internal', 'hybrid'],
      device_type: 'multiDevice',
      backed_up: true,
      name: 'Laptop',
    });
    beforeAll(() => {
      store = t.store;
    });

    test('added passkeys are listed per user, oldest first, and found by id', async () => {
      const [alice, bob] = [await newUser(), await newUser()];
      await expect(store.passkeys.add(passkey('cred-a1', alice.id))).resolves.toBe(true);
      await expect(
        store.passkeys.add({ ...passkey('cred-a2', alice.id), transports: [], device_type: 'singleDevice', backed_up: false }),
      ).resolves.toBe(true);
      await expect(store.passkeys.add(passkey('cred-b1', bob.id))).resolves.toBe(true);
      const listed = await store.passkeys.listForUser(alice.id);
      expect(listed.map((row) => row.id)).toEqual(['cred-a1', 'cred-a2']);
      expect(listed[0]).toEqual({ ...passkey('cred-a1', alice.id), created_at: expect.any(Date), last_used_at: null });
      expect(listed[1]).toMatchObject({ transports: [], device_type: 'singleDevice', backed_up: false });
      await expect(store.passkeys.find('cred-b1')).resolves.toMatchObject({ user_id: bob.id });
      await expect(store.passkeys.find('missing')).resolves.toBeUndefined();
      await expect(store.passkeys.find('nul\u0000byte')).resolves.toBeUndefined();
    });

    test('a credential id is registered once, whoever asks', async () => {
      const [alice, bob] = [await newUser(), await newUser()];
      await expect(store.passkeys.add(passkey('cred-once', alice.id))).resolves.toBe(true);
      await expect(store.passkeys.add(passkey('cred-once', bob.id))).resolves.toBe(false);
      await expect(store.passkeys.find('cred-once')).resolves.toMatchObject({ user_id: alice.id });
    });

    test("rename and remove act on the owner's passkey only", async () => {
      const [alice, bob] = [await newUser(), await newUser()];
      await store.passkeys.add(passkey('cred-owned', alice.id));
      await expect(store.passkeys.rename(bob.id, 'cred-owned', 'Stolen')).resolves.toBe(false);
      await expect(store.passkeys.remove(bob.id, 'cred-owned')).resolves.toBe(false);
      await expect(store.passkeys.rename(alice.id, 'cred-owned', 'Phone')).resolves.toBe(true);
      await expect(store.passkeys.find('cred-owned')).resolves.toMatchObject({ name: 'Phone' });
      await expect(store.passkeys.remove(alice.id, 'cred-owned')).resolves.toBe(true);
      await expect(store.passkeys.remove(alice.id, 'cred-owned')).resolves.toBe(false);
      await store.passkeys.add(passkey('cred-x', alice.id));
      await store.passkeys.add(passkey('cred-y', alice.id));
      await expect(store.passkeys.removeAll(alice.id)).resolves.toBe(2);
      await expect(store.passkeys.listForUser(alice.id)).resolves.toEqual([]);
    });

    test('a use moves the counter from the expected value only; of racing uses exactly one wins', async () => {
      const user = await newUser();
      await store.passkeys.add(passkey('cred-count', user.id));
      const at = new Date('2030-01-02T03:04:05Z');
      await expect(store.passkeys.recordUse('cred-count', 0, 5, false, at)).resolves.toBe(true);
      await expect(store.passkeys.find('cred-count')).resolves.toMatchObject({ sign_count: 5, backed_up: false, last_used_at: at });
      await expect(store.passkeys.recordUse('cred-count', 0, 6, false, at)).resolves.toBe(false);
      const results = await race(8, () => store.passkeys.recordUse('cred-count', 5, 6, true, new Date()));
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(store.passkeys.find('cred-count')).resolves.toMatchObject({ sign_count: 6, backed_up: true });
    });

    test('a challenge is spent once, for its purpose, before it expires', async () => {
      const now = new Date();
      const later = new Date(now.getTime() + 60_000);
      await store.passkeys.saveChallenge('ch-1', 'sign-in:abc', later, 5);
      await expect(store.passkeys.consumeChallenge('ch-1', 'register:abc', now)).resolves.toBe(false);
      const results = await race(6, () => store.passkeys.consumeChallenge('ch-1', 'sign-in:abc', now));
      expect(results.filter(Boolean)).toHaveLength(1);
      await store.passkeys.saveChallenge('ch-2', 'sign-in:abc', later, 5);
      await expect(store.passkeys.consumeChallenge('ch-2', 'sign-in:abc', new Date(later.getTime() + 1))).resolves.toBe(false);
      await expect(store.passkeys.sweepExpired(new Date(later.getTime() + 1))).resolves.toBe(1);
      await expect(store.passkeys.consumeChallenge('nul\u0000', 'sign-in:abc', now)).resolves.toBe(false);
    });

    test('a purpose keeps only its newest challenges: a new one deletes the oldest beyond the bound, of that purpose only', async () => {
      const start = Date.now() + 60_000;
      for (let i = 0; i < 8; i++) await store.passkeys.saveChallenge(`kept-${i}`, 'sign-in:kept', new Date(start + i * 1000), 3);
      await store.passkeys.saveChallenge('other-0', 'sign-in:other', new Date(start), 3);
      await store.passkeys.saveChallenge('kept-8', 'sign-in:kept', new Date(start + 8000), 3);
      const now = new Date();
      const live = [];
      for (let i = 0; i <= 8; i++) if (await store.passkeys.consumeChallenge(`kept-${i}`, 'sign-in:kept', now)) live.push(i);
      expect(live).toEqual([6, 7, 8]);
      await expect(store.passkeys.consumeChallenge('other-0', 'sign-in:other', now)).resolves.toBe(true);
    });

    test('passkeys go with their user', async () => {
      const user = await newUser();
      await store.passkeys.add(passkey('cred-cascade', user.id));
      await store.users.delete(user.id);
      await expect(store.passkeys.find('cred-cascade')).resolves.toBeUndefined();
    });
  });
}
