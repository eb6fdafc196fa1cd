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

export interface TestDatabase {
  engine: Engine;
  database: Database;
  store: Store;
  /** postgres:// URL of this database (PostgreSQL only), for child processes. */
  url?: string;
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
