/**
 * `npm run bench`: requests per second of the hot read paths on this machine, against a real server on
 * PostgreSQL (TEST_DATABASE_URL) or PGlite. Prints a table; asserts nothing (timings are not tests).
 * BENCH_SECONDS (default 5) and BENCH_CONNECTIONS (default 20) tune each run.
 */
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { startService } from '../../src/service.js';
import { createLogger } from '../../src/observability/logger.js';
import { API_SCOPES, createApiToken } from '../../src/domain/api-tokens.js';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { loadSettings } from '../../src/settings/load.js';
import { createPostgresDatabase } from '../helpers/database.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

const pg = process.env.TEST_DATABASE_URL ? await createPostgresDatabase() : undefined;
const database = await openDatabase({ url: pg?.url ?? '', poolSize: 20 });
await migrateToLatest(database.db);
const store = createStore(database.db);
await sql`insert into users (username, email, name, attributes)
  select 'user' || i || '@example.com', 'user' || i || '@example.com', 'Person ' || i, '{}' from generate_series(1, 10000) i`.execute(database.db);
await sql`analyze users`.execute(database.db);

const settings = await loadSettings({
  overrides: {
    secrets: { key: 'b'.repeat(64) },
    log: { level: 'silent' },
    applications: [{ slug: 'bench', name: 'Bench', client_id: 'bench', client_secret: 'bench-secret-0123456789', redirect_uris: ['http://127.0.0.1/cb'] }],
  },
});
const logger = createLogger('silent');
const server = await startService({ ...settings, server: { ...settings.server, port: 0 } }, { store, logger, redis: false, workers: false });
const { token } = await createApiToken(store, { name: 'bench', scopes: [...API_SCOPES] });
const auth = { Authorization: `Bearer ${token}` };

const cases: Array<[string, string, Record<string, string>]> = [
  ['liveness', '/-/health/live/', {}],
  ['discovery', '/application/o/bench/.well-known/openid-configuration', {}],
  ['jwks', '/application/o/bench/jwks/', {}],
  ['get user', '/api/v3/core/users/5000/', auth],
  ['list users (20)', '/api/v3/core/users/?page=10', auth],
  ['search users', '/api/v3/core/users/?search=person%209999', auth],
];

console.log(`engine ${database.engine}, ${connections} connections, ${seconds} s each, 10,000 users\n`);
console.log('case'.padEnd(18), 'req/s'.padStart(9), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'non-2xx'.padStart(8));
for (const [name, path, headers] of cases) {
  const result = await autocannon({ url: server.url + path, headers, connections, duration: seconds });
  console.log(name.padEnd(18), String(Math.round(result.requests.average)).padStart(9), String(result.latency.p50).padStart(8), String(result.latency.p99).padStart(8), String(result.non2xx).padStart(8));
}

await server.close();
await database.close();
await pg?.drop();
