/** InstanceState.claimOnce (first-start work happens once across replicas) and ping (readiness). */
import { race, secondClient, useDatabase, type Open } from './fixture.js';

export function runInstanceConformance(open: Open): void {
  describe('instance state and ping', () => {
    const t = useDatabase(open);

    test('claimOnce is true for exactly one of many racing callers', async () => {
      const results = await race(10, () => t.store.state.claimOnce('race-key'));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test('claimOnce stays claimed for every later caller, on every connection; keys are independent', async () => {
      const other = await secondClient(t.db);
      try {
        expect(await t.store.state.claimOnce('bootstrap')).toBe(true);
        expect(await t.store.state.claimOnce('bootstrap')).toBe(false);
        expect(await other.store.state.claimOnce('bootstrap')).toBe(false);
        expect(await other.store.state.claimOnce('another-key')).toBe(true);
      } finally {
        await other.close();
      }
    });

    test('ping answers', async () => {
      await expect(t.store.ping()).resolves.toBeUndefined();
    });

    test('ping fails once the database is gone (it really asks the database)', async () => {
      const gone = await open();
      await gone.close();
      await expect(gone.store.ping()).rejects.toThrow();
    });
  });
}
