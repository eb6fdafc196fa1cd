/** Opens what every command needs: the database (migrated) and the store over it. */
import path from 'node:path';
import type { Settings } from './settings/schema.js';
import { openDatabase, type Database } from './store/database.js';
import { lockEmbeddedDatabase } from './store/embedded-lock.js';
import { migrateToLatest } from './store/migrate.js';
import { createStore } from './store/store.js';
import type { Store } from './store/contract.js';

export interface Runtime {
  database: Database;
  store: Store;
  /** The migrations this opening applied (empty: the schema was current already). */
  applied: string[];
  close(): Promise<void>;
}

export async function openRuntime(settings: Settings): Promise<Runtime> {
  const embedded = !settings.database.url;
  const unlock = embedded ? lockEmbeddedDatabase(settings.data_dir) : () => {};
  try {
    const database = await openDatabase({
      url: settings.database.url,
      poolSize: settings.database.pool_size,
      dataDir: embedded ? path.join(settings.data_dir, 'db') : undefined,
    });
    const applied = await migrateToLatest(database.db);
    return {
      database,
      applied,
      store: createStore(database.db),
      async close() {
        await database.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}
