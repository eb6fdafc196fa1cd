/**
 * What every part of the store conformance suite shares: a database per part (opened before its tests,
 * closed after), a second connection to the same database for races between processes, and small builders.
 */
import { openDatabase } from '../../../src/store/database.js';
import { createStore } from '../../../src/store/store.js';
import type { NewUser, Store } from '../../../src/store/contract.js';
import type { TestDatabase } from '../../helpers/database.js';

export type Open = () => Promise<TestDatabase>;

/** What a backend can do, as data; a test that needs more than the backend has is skipped, saying why. */
export interface Backend {
  /** Two clients are two database sessions that run at the same time (PostgreSQL). PGlite is one session. */
  concurrentSessions: boolean;
}

/** Opens a fresh database for the enclosing describe block; read `db` and `store` inside tests. */
export function useDatabase(open: Open): { readonly db: TestDatabase; readonly store: Store } {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => db?.close());
  return {
    get db() {
      return db!;
    },
    get store() {
      return db!.store;
    },
  };
}

/**
 * Another client of the same database, as a second replica would be. PostgreSQL: its own connection pool.
 * PGlite is one session in this process, so there is no second connection: the same store is returned and
 * its pool serialises concurrent callers (a race there checks that the calls take turns cleanly).
 */
export async function secondClient(db: TestDatabase): Promise<{ store: Store; close(): Promise<void> }> {
  if (db.secondClient) return db.secondClient();
  if (!db.url) return { store: db.store, close: async () => {} };
  const database = await openDatabase({ url: db.url, poolSize: 10 });
  return { store: createStore(database.db), close: () => database.close() };
}

/** `n` concurrent calls (started together, awaited together). */
export const race = <T>(n: number, call: (i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => call(i)));

export const user = (n: number | string, extra: Partial<NewUser> = {}): NewUser => ({
  username: `user${n}@example.com`,
  email: `user${n}@example.com`,
  name: `User ${n}`,
  ...extra,
});

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
