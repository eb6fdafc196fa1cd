/**
 * EmailChangesRepository: one pending change per user (a new one replaces the old, with fresh attempts); attempts
 * counted atomically and never past the limit; the change spent once, only with its own code hash and before it
 * expires; expired changes swept; user deletion removes it.
 */
import type { Store } from '../../../src/store/contract.js';
import { race, useDatabase, type Open } from './fixture.js';

export function runEmailChangesConformance(open: Open): void {
  describe('e-mail changes', () => {
    const t = useDatabase(open);
    let store: Store;
    let n = 0;
    const newUser = async () => {
      const email = `change${++n}-${Date.now()}@example.com`;
      return store.users.insert({ username: email, email, name: 'Test' });
    };
    const later = () => new Date(Date.now() + 60_000);
    beforeAll(() => {
      store = t.store;
    });

    test('one pending change per user: saving again replaces it, with no attempts; find misses expired ones', async () => {
      const user = await newUser();
      await store.emailChanges.save({ user_id: user.id, email: 'first@example.com', code_hash: 'h1', expires_at: later() });
      await store.emailChanges.countAttempt(user.id, 5, new Date());
      await store.emailChanges.save({ user_id: user.id, email: 'second@example.com', code_hash: 'h2', expires_at: later() });
      await expect(store.emailChanges.find(user.id, new Date())).resolves.toMatchObject({
        user_id: user.id,
        email: 'second@example.com',
        code_hash: 'h2',
        attempts: 0,
      });
      await expect(store.emailChanges.find(user.id, new Date(Date.now() + 120_000))).resolves.toBeUndefined();
      await expect(store.emailChanges.find(user.id + 100_000, new Date())).resolves.toBeUndefined();
    });

    test('countAttempt: 10 concurrent attempts against a limit of 3 count exactly 3, each seeing the row as it was', async () => {
      const user = await newUser();
      await store.emailChanges.save({ user_id: user.id, email: 'new@example.com', code_hash: 'h', expires_at: later() });
      const seen = await race(10, () => store.emailChanges.countAttempt(user.id, 3, new Date()));
      expect(
        seen
          .filter(Boolean)
          .map((row) => row!.attempts)
          .sort(),
      ).toEqual([0, 1, 2]);
      await expect(store.emailChanges.find(user.id, new Date())).resolves.toMatchObject({ attempts: 3 });
      await expect(store.emailChanges.countAttempt(user.id, 3, new Date())).resolves.toBeUndefined();
    });

    test('consume: exactly one of 10 racing callers gets the address; a wrong hash or an expired change is not spent', async () => {
      const user = await newUser();
      await store.emailChanges.save({ user_id: user.id, email: 'won@example.com', code_hash: 'right', expires_at: later() });
      await expect(store.emailChanges.consume(user.id, 'wrong', new Date())).resolves.toBeUndefined();
      await expect(store.emailChanges.consume(user.id, 'right', new Date(Date.now() + 120_000))).resolves.toBeUndefined();
      const results = await race(10, () => store.emailChanges.consume(user.id, 'right', new Date()));
      expect(results.filter(Boolean)).toEqual(['won@example.com']);
      await expect(store.emailChanges.find(user.id, new Date())).resolves.toBeUndefined();
    });

    test('cancel, sweepExpired, and the user going take the change with them', async () => {
      const user = await newUser();
      await store.emailChanges.save({ user_id: user.id, email: 'x@example.com', code_hash: 'h', expires_at: later() });
      await expect(store.emailChanges.cancel(user.id)).resolves.toBe(true);
      await expect(store.emailChanges.cancel(user.id)).resolves.toBe(false);

      const now = new Date(); // the other tests' changes expire a minute from now: only this one is older
      await store.emailChanges.save({
        user_id: user.id,
        email: 'old@example.com',
        code_hash: 'h',
        expires_at: new Date(now.getTime() - 1),
      });
      await expect(store.emailChanges.sweepExpired(now)).resolves.toBe(1);
      await expect(store.emailChanges.sweepExpired(now)).resolves.toBe(0);

      await store.emailChanges.save({ user_id: user.id, email: 'gone@example.com', code_hash: 'h', expires_at: later() });
      await store.users.delete(user.id);
      await expect(store.emailChanges.find(user.id, new Date())).resolves.toBeUndefined();
    });
  });
}
