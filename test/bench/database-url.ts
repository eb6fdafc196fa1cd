/**
 * The benchmark's service reaches PostgreSQL as a service on the same machine normally would: over the server's
 * Unix socket, as psql and libpq do by default, when TEST_DATABASE_URL names this machine and the socket is where
 * Debian's packages put it. Loopback TCP costs both ends a TCP stack per message: about 3 ms of CPU per password
 * sign-in here (docs/performance.md). BENCH_DATABASE_TCP=1 keeps TCP.
 */
import { existsSync } from 'node:fs';

const SOCKET_DIR = '/var/run/postgresql';
const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function benchDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  const socket = `${SOCKET_DIR}/.s.PGSQL.${parsed.port || 5432}`;
  if (process.env.BENCH_DATABASE_TCP || !LOCAL.has(parsed.hostname) || !existsSync(socket)) return url;
  parsed.searchParams.set('host', SOCKET_DIR); // node-postgres: a host that is a directory is a socket's
  return parsed.toString();
}

/** How the service reaches the database, for the report. */
export const transportOf = (url: string) => (new URL(url).searchParams.get('host')?.startsWith('/') ? 'its Unix socket' : 'TCP');
