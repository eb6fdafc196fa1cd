/** SigningKeysRepository: one first key when replicas race, at most one active key, list order. */
import type { Store } from '../../../src/store/contract.js';
import { secondClient, useDatabase, type Open } from './fixture.js';

export function runSigningKeysConformance(open: Open): void {
  describe('signing keys', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });

    test('one first key even when replicas race; activate retires the previous key', async () => {
      const firsts = await Promise.all([1, 2, 3].map((n) => store.signingKeys.insertFirst({ kid: `first-${n}`, encrypted_jwk: 'x' })));
      expect(firsts.filter(Boolean)).toHaveLength(1);
      const [first] = await store.signingKeys.list();
      expect(first!.state).toBe('active');
      await store.signingKeys.activate({ kid: 'second', encrypted_jwk: 'y' }, new Date());
      const keys = await store.signingKeys.list();
      expect(keys.map((key) => [key.kid, key.state])).toEqual([
        ['second', 'active'],
        [first!.kid, 'retired'],
      ]);
      expect(keys[1]!.retired_at).toBeInstanceOf(Date);
      expect(await store.signingKeys.insertFirst({ kid: 'late-first', encrypted_jwk: 'z' })).toBe(false);
    });

    test('list: the active key first, then retired keys newest first; activate stamps retired_at with its time', async () => {
      const at = new Date('2031-05-06T07:08:09Z');
      await store.signingKeys.activate({ kid: 'third', encrypted_jwk: 'z' }, at);
      const keys = await store.signingKeys.list();
      expect(keys.slice(0, 3).map((key) => [key.kid, key.state])).toEqual([
        ['third', 'active'],
        ['second', 'retired'],
        [expect.stringMatching(/^first-/), 'retired'],
      ]);
      expect(keys[1]!.retired_at).toEqual(at);
      expect(keys[1]!.encrypted_jwk).toBe('y');
    });

    test('activations racing on two connections leave exactly one active key', async () => {
      const other = await secondClient(t.db);
      try {
        const settled = await Promise.allSettled([
          store.signingKeys.activate({ kid: 'race-a', encrypted_jwk: 'a' }, new Date()),
          other.store.signingKeys.activate({ kid: 'race-b', encrypted_jwk: 'b' }, new Date()),
        ]);
        expect(settled.some((result) => result.status === 'fulfilled')).toBe(true);
        const active = (await store.signingKeys.list()).filter((key) => key.state === 'active');
        expect(active).toHaveLength(1);
        expect(['race-a', 'race-b']).toContain(active[0]!.kid);
      } finally {
        await other.close();
      }
    });
  });
}
