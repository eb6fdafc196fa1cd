/**
 * Builds one migrated PGlite database and dumps it, so each test file loads it instead of running initdb; and the
 * same as a data folder, for the child processes that run the embedded engine (settings.ts: migratedDataDir).
 * Run by global-setup.mjs through tsx (Jest's globalSetup does not resolve TypeScript ESM imports).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect } from 'kysely';
import { pglitePool } from '../../src/store/pglite-pool.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { TEMPLATE_DATA_DIR, TEMPLATE_DIR, TEMPLATE_FILE } from './paths.js';

async function buildTemplate(): Promise<void> {
  mkdirSync(TEMPLATE_DIR, { recursive: true });
  const lite = await PGlite.create({ extensions: { pg_trgm } });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: pglitePool(lite, { refused: false }) }) });
  await migrateToLatest(db);
  const dump = await lite.dumpDataDir('gzip');
  writeFileSync(TEMPLATE_FILE, Buffer.from(await dump.arrayBuffer()));
  await db.destroy();
  await lite.close();
  rmSync(TEMPLATE_DATA_DIR, { recursive: true, force: true });
  const onDisk = await PGlite.create({ dataDir: TEMPLATE_DATA_DIR, loadDataDir: dump, extensions: { pg_trgm } });
  await onDisk.close();
}

await buildTemplate();
