/**
 * Real databases for tests: PGlite (always), loaded from the migrated template, and PostgreSQL when
 * TEST_DATABASE_URL is set — a fresh database per call on that server, dropped on close.
 */
import { randomBytes } from 'node:crypto';
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

/** Engines to run against: PGlite always; PostgreSQL when TEST_DATABASE_URL is set (CI sets it). */
export const engines: Engine[] = serverUrl ? ['pglite', 'postgres'] : ['pglite'];

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
