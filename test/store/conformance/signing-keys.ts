/** SigningKeysRepository: one first key per algorithm when replicas race, at most one active key per algorithm, list order. */
import type { NewSigningKey, Store } from '../../../src/store/contract.js';
import type { SigningAlg } from '../../../src/settings/signing-algorithms.js';
import { secondClient, useDatabase, type Open } from './fixture.js';

const key = (kid: string, alg: SigningAlg = 'RS256'): NewSigningKey => ({ kid, alg, encrypted_jwk: `sealed ${kid}` });

export function runSigningKeysConformance(open: Open): void {
  describe('signing keys', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });
    const states = async () => (await store.signingKeys.list()).map((row) => [row.kid, row.alg, row.state]);

    test('one first key per algorithm even when replicas race; activate retires the previous key of its algorithm only', async () => {
      const firsts = await Promise.all([1, 2, 3].map((n) => store.signingKeys.insertFirst(key(`first-${n}`))));
      expect(firsts.filter(Boolean)).toHaveLength(1);
      // Another algorithm has a first key of its own beside RS256's.
      const edFirsts = await Promise.all([1, 2].map((n) => store.signingKeys.insertFirst(key(`ed-${n}`, 'EdDSA'))));
      expect(edFirsts.filter(Boolean)).toHaveLength(1);
      const [first, ed] = await store.signingKeys.list();
      expect([first!.alg, first!.state, ed!.alg, ed!.state]).toEqual(['RS256', 'active', 'EdDSA', 'active']);

      await store.signingKeys.activate([key('second')], new Date());
      expect(await states()).toEqual([
        ['second', 'RS256', 'active'],
        [ed!.kid, 'EdDSA', 'active'],
        [first!.kid, 'RS256', 'retired'],
      ]);
      expect((await store.signingKeys.list())[2]!.retired_at).toBeInstanceOf(Date);
      expect(await store.signingKeys.insertFirst(key('late-first'))).toBe(false);
      expect(await store.signingKeys.insertFirst(key('late-ed', 'EdDSA'))).toBe(false);
    });

    test('list: active keys first in algorithm order (RS256, ES256, EdDSA), then retired ones by algorithm, newest first; one activate rotates several algorithms at once, stamping retired_at with its time', async () => {
      const at = new Date('2031-05-06T07:08:09Z');
      await store.signingKeys.activate([key('third'), key('es-1', 'ES256'), key('ed-3', 'EdDSA')], at);
      const rows = await store.signingKeys.list();
      expect(rows.map((row) => [row.kid, row.alg, row.state])).toEqual([
        ['third', 'RS256', 'active'],
        ['es-1', 'ES256', 'active'],
        ['ed-3', 'EdDSA', 'active'],
        ['second', 'RS256', 'retired'],
        [expect.stringMatching(/^first-/), 'RS256', 'retired'],
        [expect.stringMatching(/^ed-[12]$/), 'EdDSA', 'retired'],
      ]);
      expect(rows[3]!.retired_at).toEqual(at);
      expect(rows[5]!.retired_at).toEqual(at);
      expect(rows[3]!.encrypted_jwk).toBe('sealed second');
    });

    test('activations racing on two connections leave exactly one active key per algorithm', async () => {
      const other = await secondClient(t.db);
      try {
        const settled = await Promise.allSettled([
          store.signingKeys.activate([key('race-a'), key('race-a-es', 'ES256')], new Date()),
          other.store.signingKeys.activate([key('race-b'), key('race-b-es', 'ES256')], new Date()),
        ]);
        expect(settled.some((result) => result.status === 'fulfilled')).toBe(true);
        const active = (await store.signingKeys.list()).filter((row) => row.state === 'active');
        expect(active.map((row) => row.alg)).toEqual(['RS256', 'ES256', 'EdDSA']);
        // Each rotation is whole: the winner's keys of both algorithms, never one of each.
        expect([
          ['race-a', 'race-a-es'],
          ['race-b', 'race-b-es'],
        ]).toContainEqual(active.slice(0, 2).map((row) => row.kid));
      } finally {
        await other.close();
      }
    });
  });
}
