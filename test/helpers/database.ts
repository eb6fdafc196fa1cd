/**
 * Real databases for tests: PGlite (always), loaded from the migrated template, and PostgreSQL when
 * TEST_DATABASE_URL is set — a fresh database per call on that server, dropped on close.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { openDatabase, type Database, type Engine } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import type { Store } from '../../src/store/contract.js';
import { TEMPLATE_FILE } from './paths.js';
import { withReplicaCache, type Replica } from '../../src/store/replica/index.js';
import { createLogger } from '../../src/observability/logger.js';

export interface TestDatabase {
  engine: Engine;
  database: Database;
  store: Store;
  /** postgres:// URL of this database (PostgreSQL only), for child processes. */
  url?: string;
  /** Another client of the same database, as a second replica would be (test/store/conformance/fixture.ts). */
  secondClient?(): Promise<{ store: Store; close(): Promise<void> }>;
  close(): Promise<void>;
}

const serverUrl = process.env.TEST_DATABASE_URL;

/** Every engine there is here: PGlite always; PostgreSQL when TEST_DATABASE_URL is set (CI sets it). */
export const everyEngine: Engine[] = serverUrl ? ['pglite', 'postgres'] : ['pglite'];

/**
 * The engines a test file runs on. The store's own suites (test/store/) run on every engine: they are what makes
 * the engines interchangeable, as Dex runs its storage conformance on every backend. Any other file runs on one,
 * chosen by a hash of its path, so each engine carries about half of the journeys; a file that tests what the
 * engines could disagree on (how an address compares, say) imports `everyEngine` instead. TEST_ENGINES=all runs
 * every file on every engine (the full matrix, twice as long); TEST_ENGINES=pglite or postgres, one for all.
 */
export const engines: Engine[] = enginesOf(
  typeof expect === 'undefined' ? '' : (expect.getState().testPath ?? ''), // '' outside Jest (the load scripts)
  process.env.TEST_ENGINES,
);

function enginesOf(testPath: string, chosen: string | undefined): Engine[] {
  if (chosen === 'all' || /[\\/]test[\\/]store[\\/]/.test(testPath)) return everyEngine;
  if (chosen === 'pglite' || chosen === 'postgres') return everyEngine.filter((engine) => engine === chosen);
  if (chosen) throw new Error(`TEST_ENGINES=${chosen}: expected all, pglite or postgres`);
  const file = testPath.slice(testPath.lastIndexOf(`${path.sep}test${path.sep}`));
  const hash = createHash('sha256').update(file.replaceAll(path.sep, '/')).digest();
  return [everyEngine[hash[0]! % everyEngine.length]!];
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `idp_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}

export async function openTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'pglite') {
    const database = await openDatabase({ url: '', loadDataDir: new Blob([readFileSync(TEMPLATE_FILE)]) });
    // Idempotent: a test may close the database under a running service, whose own close comes later.
    let closing: Promise<void> | undefined;
    return { engine, database, store: createStore(database.db), close: () => (closing ??= database.close()) };
  }
  const { url, drop } = await createPostgresDatabase();
  const database = await openDatabase({ url, poolSize: 25 });
  await migrateToLatest(database.db);
  return {
    engine,
    database,
    url,
    store: createStore(database.db),
    async close() {
      await database.close();
      await drop();
    },
  };
}

/**
 * The store a serving process runs: `withReplicaCache` over a fresh database, live (its change notices followed).
 * Its second client is a second replica: its own pool, listening connection and cache (PostgreSQL only).
 */
export async function openReplicaTestDatabase(engine: Engine): Promise<TestDatabase> {
  const bare = await openTestDatabase(engine);
  const replicaOf = async (database: Database, store: Store): Promise<Replica> => {
    const replica = withReplicaCache(store, database, { maxEntries: 10_000, logger: createLogger('silent') });
    for (let tries = 0; !replica.cache?.live; tries += 1) {
      if (tries > 500) throw new Error('the replica never listened for change notices');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return replica;
  };
  const replica = await replicaOf(bare.database, bare.store);
  return {
    ...bare,
    store: replica.store,
    async secondClient() {
      if (!bare.url) return { store: replica.store, close: async () => {} };
      const database = await openDatabase({ url: bare.url, poolSize: 10 });
      const other = await replicaOf(database, createStore(database.db));
      return {
        store: other.store,
        async close() {
          await other.stop();
          await database.close();
        },
      };
    },
    async close() {
      await replica.stop();
      await bare.close();
    },
  };
}
