/** Builds the Kysely database: embedded PGlite when no URL is configured, else a PostgreSQL pool. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import type { Tables } from './tables.js';
import { pglitePool } from './pglite-pool.js';
import { reportUnavailable } from './report-unavailable.js';
import { trackRoom, type WriteRoom } from './write-room.js';
import { listenPglite, listenPostgres, type Listening, type NoticeListener } from './change-feed.js';

export type Engine = 'pglite' | 'postgres';

export interface Database {
  db: Kysely<Tables>;
  engine: Engine;
  /** PostgreSQL pool usage (metrics); undefined for the embedded database. */
  poolUsage?(): { total: number; idle: number; waiting: number };
  /** Follows the change notices (migration 0008) until the returned stop is called; absent where nothing caches. */
  listen?(listener: NoticeListener): Listening;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; empty for PGlite. */
  url: string;
  poolSize?: number;
  /** PGlite data folder; omitted = in memory. */
  dataDir?: string;
  /** PGlite: start from this dumped data directory (tests load one migrated template). */
  loadDataDir?: Blob;
  /** Called with every statement's SQL as it runs (tests count the round trips of a request). */
  onQuery?: (sql: string) => void;
}

/** How the service's sessions plan: for storage without seek cost (SSD, or a database that fits in memory). */
export const PLANNER_OPTIONS = '-c random_page_cost=1.1';

const queryLog = ({ onQuery }: DatabaseOptions) => onQuery && ((event: LogEvent) => onQuery(event.query.sql));

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    // A request waits at most 5 s for a connection, then the store reports the database unavailable.
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
      // PostgreSQL's default random_page_cost (4) prices disks that seek: it then prefers reading the whole users
      // table to the trigram indexes for a search that matches one user in a hundred (48 ms instead of 6 at 100k).
      options: PLANNER_OPTIONS,
    });
    pool.on('error', () => {}); // an idle client dropped by the server; the next query reconnects
    const room: WriteRoom = { refused: false };
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: reportUnavailable(pool, room) }), log: queryLog(options) });
    trackRoom(db, room);
    return {
      db,
      engine: 'postgres',
      close: () => db.destroy(),
      listen: (listener) => listenPostgres(options.url, listener),
      poolUsage: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    };
  }
  if (options.dataDir) mkdirSync(path.dirname(path.resolve(options.dataDir)), { recursive: true });
  const lite = await PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    extensions: { pg_trgm },
  });
  const room: WriteRoom = { refused: false };
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: pglitePool(lite, room) }), log: queryLog(options) });
  trackRoom(db, room);
  return {
    db,
    engine: 'pglite',
    listen: (listener) => listenPglite(lite, listener),
    close: async () => {
      await db.destroy();
      await lite.close();
    },
  };
}
