/**
 * What CLI commands share: settings, a logger and the opened runtime, closed when the command ends — or, while
 * `idp serve` holds the embedded database, that server's admin API — and output for people.
 */
import { loadSettings } from '../settings/load.js';
import type { Settings } from '../settings/schema.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { openRuntime, type Runtime } from '../runtime.js';
import { EmbeddedDatabaseBusy } from '../store/embedded-lock.js';
import { adminClient, type AdminClient } from '../api/admin-client.js';

type Work<T> = (runtime: Runtime, settings: Settings, logger: Logger) => Promise<T>;

async function runOn<T>(runtime: Runtime, settings: Settings, work: Work<T>): Promise<T> {
  const logger = createLogger(settings.log.level === 'info' ? 'warn' : settings.log.level);
  try {
    return await work(runtime, settings, logger);
  } finally {
    await runtime.close();
  }
}

export async function withRuntime<T>(work: Work<T>): Promise<T> {
  const settings = await loadSettings();
  return runOn(await openRuntime(settings), settings, work);
}

/**
 * Where `idp serve` listens by this configuration (server.host, server.port): the CLI runs beside the embedded
 * database, hence beside the server, so the listener is reachable where issuer.base_url (a proxy's) may not be.
 * A wildcard address is reached over loopback.
 */
export function listenerUrl(settings: Settings): string {
  const { host, port } = settings.server;
  if (!port) throw new Error('server.port is 0 (any free port): set PORT to the port `idp serve` listens on');
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const reachable = bare === '0.0.0.0' ? '127.0.0.1' : bare === '::' ? '::1' : bare;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** The `--token` option of the commands that can fall back to the running server. */
export const ADMIN_TOKEN_OPTION = [
  '--token <token>',
  'an API token with the admin scope, used only while `idp serve` holds the embedded database (default: IDP_ADMIN_TOKEN)',
] as const;

/**
 * withRuntime, except that when the embedded database is held by another process (a running `idp serve`) the
 * work is done through that server's admin API, with an admin-scoped token: `--token`, else IDP_ADMIN_TOKEN.
 * Without one it refuses in one line that says how. Only opening the database falls back: an error of the
 * work itself is the command's answer.
 */
export async function withRuntimeOrServer<T>(
  token: string | undefined,
  work: { local: Work<T>; remote: (server: AdminClient, settings: Settings) => Promise<T> },
): Promise<T> {
  const settings = await loadSettings();
  let runtime: Runtime;
  try {
    runtime = await openRuntime(settings);
  } catch (error) {
    if (!(error instanceof EmbeddedDatabaseBusy)) throw error;
    const credential = token || process.env.IDP_ADMIN_TOKEN;
    if (!credential) {
      // The lock's own advice ("use the API") is made concrete: which variable, which scope.
      const held = error.message.replace(/; stop it first.*$/, '');
      throw new EmbeddedDatabaseBusy(
        `${held}; to do this through the running server, set IDP_ADMIN_TOKEN (or --token) to an API token with the admin scope (e.g. the bootstrap token), or stop it first`,
      );
    }
    const server = adminClient(listenerUrl(settings), credential);
    // stderr: stdout stays exactly what the command prints either way.
    process.stderr.write(`the embedded database is in use: working through the running server at ${server.url}\n`);
    return work.remote(server, settings);
  }
  return runOn(runtime, settings, work.local);
}

/** Prints to stdout: the CLI's output is for people and scripts, not the log. */
export const print = (line = '') => process.stdout.write(line + '\n');

/** Prints a header row and the rows under it, each column as wide as its widest cell (the last one unpadded). */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  for (const row of [header, ...rows])
    print(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
}
