/** InstanceState.claimOnce (first-start work happens once across replicas) and probe (readiness through the contract). */
import { sql } from 'kysely';
import { race, secondClient, useDatabase, type Open } from './fixture.js';

export function runInstanceConformance(open: Open): void {
  describe('instance state and readiness probe', () => {
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

    test('probe writes, reads back and deletes a row, and leaves nothing behind', async () => {
      await expect(t.store.probe()).resolves.toBeUndefined();
      await expect(t.store.probe()).resolves.toBeUndefined();
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from readiness_probes`.execute(t.db.database.db);
      expect(rows[0]!.n).toBe(0);
    });

    test('probe fails while the database answers but takes no writes (a read-only standby or role)', async () => {
      const db = t.db.database.db;
      // PGlite is one session: read-only for it; PostgreSQL: for the database, as a standby would be for everyone.
      const readOnly = t.db.url
        ? sql`alter database ${sql.id(new URL(t.db.url).pathname.slice(1))} set default_transaction_read_only = on`
        : sql`set default_transaction_read_only = on`;
      const writable = t.db.url
        ? sql`alter database ${sql.id(new URL(t.db.url).pathname.slice(1))} reset default_transaction_read_only`
        : sql`set default_transaction_read_only = off`;
      await readOnly.execute(db);
      try {
        const fresh = t.db.url ? await secondClient(t.db) : { store: t.store, close: async () => {} };
        try {
          await expect(fresh.store.probe()).rejects.toThrow();
        } finally {
          await fresh.close();
        }
      } finally {
        await writable.execute(db);
      }
      await expect(t.store.probe()).resolves.toBeUndefined();
    });

    test('probe fails once the database is gone (it really asks the database)', async () => {
      const gone = await open();
      await gone.close();
      await expect(gone.store.probe()).rejects.toThrow();
    });
  });
}
