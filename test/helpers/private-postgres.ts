/**
 * A PostgreSQL server of the test's own (Debian's binaries, a throwaway cluster in a temp folder, a free port),
 * so a test can stop it and start it again to see what the service does while the database is down.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openDatabase } from '../../src/store/database.js';
import { createStore } from '../../src/store/store.js';
import type { TestDatabase } from './database.js';

const BIN = path.join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().at(-1)!, 'bin');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a PostgreSQL tool as the postgres user (initdb refuses root). */
const asPostgres = (tool: string, args: string[]) =>
  execFileSync('runuser', ['-u', 'postgres', '--', path.join(BIN, tool), ...args], { stdio: 'pipe' });

export interface PrivatePostgres {
  /** An opened, migrated database on this server, like openTestDatabase's. */
  db: TestDatabase;
  stop(): void;
  start(): void;
  /** Stops the server and deletes the cluster. */
  destroy(): Promise<void>;
}

/** `under`: the folder the cluster lives in (default: the system's temporary folder), e.g. a small disk to fill. */
export async function privatePostgres(options: { under?: string } = {}): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(options.under ?? os.tmpdir(), 'idp-pg-'));
  chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const port = await freePort();
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  const start = () =>
    asPostgres('pg_ctl', [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-w',
      'start',
      '-l',
      path.join(dir, 'log'),
    ]);
  const stop = () => asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const database = await openDatabase({ url, poolSize: 10 });
  await migrateToLatest(database.db);
  const db: TestDatabase = { engine: 'postgres', database, url, store: createStore(database.db), close: () => database.close() };
  return {
    db,
    stop,
    start,
    async destroy() {
      await database.close().catch(() => {});
      try {
        stop();
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
