/**
 * Lets Kysely's PostgresDialect drive an embedded PGlite database. PGlite is one session, so the
 * "pool" hands out its single connection to one caller at a time; a transaction keeps it until release.
 * A full disk is reported as PostgreSQL's is: `Unavailable`, and marked on the room (report-unavailable.ts).
 */
import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { reportedFailure } from './report-unavailable.js';
import type { WriteRoom } from './write-room.js';

export function pglitePool(db: PGlite, room: WriteRoom): PostgresPool {
  let tail: Promise<void> = Promise.resolve();

  // Kysely only calls query(sql, parameters); the cursor overload is for streaming, which we never use.
  const client = {
    async query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>> {
      const result = await db.query<R>(sql, parameters as unknown[]).catch((error: unknown) => {
        throw reportedFailure(error, room);
      });
      const command = sql.trimStart().split(/\s/, 1)[0]!.toUpperCase() as PostgresQueryResult<R>['command'];
      return { command, rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
    },
    release() {},
  } as unknown as PostgresPoolClient;

  return {
    async connect() {
      let release!: () => void;
      const previous = tail;
      tail = new Promise<void>((resolve) => (release = resolve));
      await previous;
      return { ...client, release };
    },
    async end() {
      await tail;
    },
  };
}
