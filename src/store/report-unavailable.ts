/**
 * The store's answer when PostgreSQL does not answer (down, restarting, unreachable) or cannot write (its disk is
 * full): every method rejects with `Unavailable`, so each web family can say "try again shortly" (503) instead of
 * failing as if it were a bug. A wrong query still fails as itself. Once the server is back, the pool connects
 * again, and once it has room, writes succeed again: no restart needed. A full disk is also marked on the
 * database's room (write-room.ts), so readiness says so while it lasts. The embedded database's pool reports
 * through `reportedFailure` too (pglite-pool.ts). The hot paths' statements run prepared here (prepared-statements.ts).
 */
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { Unavailable } from '../errors.js';
import { statementName } from './prepared-statements.js';
import { isOutOfRoom, type WriteRoom } from './write-room.js';

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

/** SQLSTATE class 08 (connection exception), 57P01-03 (shutdown, cannot connect now), 53300 (too many connections). */
export function isConnectionFailure(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code && (CONNECTION_CODES.has(code) || /^(08...|57P0[123]|53300)$/.test(code))) return true;
  return /connection terminated|timeout exceeded when trying to connect|connection error|not queryable/i.test(message ?? '');
}

/** The error a store method rejects with: `Unavailable` for a database that does not answer or has no room to write. */
export function reportedFailure(error: unknown, room: WriteRoom): unknown {
  if (isOutOfRoom(error)) {
    room.refused = true;
    return new Unavailable('The database', error);
  }
  return isConnectionFailure(error) ? new Unavailable('The database', error) : error;
}

export function reportUnavailable(pool: pg.Pool, room: WriteRoom): PostgresPool {
  const translate = (error: unknown) => reportedFailure(error, room);
  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw translate(error);
      }
      // A checked-out client whose server goes away emits 'error' between queries; unheard, it would crash the
      // process. The next query on it fails (and is reported) instead; the pool then replaces it.
      const ignore = () => {};
      client.on('error', ignore);
      // Kysely only calls query(sql, parameters); the cursor overload is for streaming, which we never use.
      const query = (sql: string, parameters: unknown[]) => {
        const name = statementName(sql);
        return client.query(name ? { name, text: sql, values: parameters } : { text: sql, values: parameters }).catch((error: unknown) => {
          throw translate(error);
        });
      };
      const release = () => {
        client.off('error', ignore);
        client.release();
      };
      return { query, release } as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
