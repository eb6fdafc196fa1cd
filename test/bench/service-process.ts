/**
 * The service for `npm run bench`, started as its users start it: the compiled `node dist/src/main.js serve`
 * with NODE_ENV=production (BENCH_START=npm: the command `npm start` runs, through tsx, without NODE_ENV), on
 * the default settings — a request log line on stdout (drained here, as a log collector would), the database pool,
 * the read cache, Redis rate limits — and a fresh PostgreSQL database over its socket. Only the applications come
 * from NODE_CONFIG (and, for the webhook measurement, the embedded workers). People are created through the API
 * and sign in over HTTP with their passwords. This process only launches and prepares: it prints READY with the
 * fixture, whose pid is the service's (for bench:cpu and bench:profile), and stops the service on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';
import { ROOT } from '../helpers/paths.js';
import { benchDatabaseUrl } from './database-url.js';
import { algClientId, announce, OTHER_ALGS, SIGN_IN_LOOPS, LOOPS, type BenchFixture } from './fixture.js';
import { call, expectStatus } from './loops.js';
import { signedInFixture } from './signed-in-fixture.js';
import { withPassword } from './sign-in-flow.js';

const BENCH_PASSWORD = 'correct horse battery staple';
const BCRYPT_COST = 12; // the default (passwords.bcrypt_cost), which the sign-in measurement reports
const API_TOKEN = `bench_${'a'.repeat(40)}`;
const start = process.env.BENCH_START === 'npm' ? 'npm' : 'dist';

const created = await createPostgresDatabase();
const databaseUrl = benchDatabaseUrl(created.url);
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'idp-bench-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const redirectUri = 'http://127.0.0.1:1/cb';
const client = { id: 'bench', secret: 'bench-secret-0123456789', redirectUri };
// BENCH_WEBHOOK_URL: a process that delivers webhooks (the embedded workers) to the driver's receiver.
const webhookUrl = process.env.BENCH_WEBHOOK_URL;
const app = (slug: string, extra: object = {}) => ({
  slug,
  name: slug,
  client_id: slug,
  client_secret: client.secret,
  redirect_uris: [redirectUri],
  ...extra,
});
const config = {
  redis: { prefix: `bench${process.pid}` },
  // The fixture's access tokens are introspected minutes after the sign-ins: an hour, as on the bare engine.
  tokens: { access_token_ttl: 3600 },
  applications: [
    app('bench'),
    // The same application signing its ID tokens with ES256 and with EdDSA (the `(ES256)` and `(EdDSA)` scenarios).
    ...OTHER_ALGS.map((alg) => app(algClientId(alg), { id_token_signed_response_alg: alg })),
    {
      slug: 'machine',
      name: 'Machine',
      client_id: 'machine',
      client_secret: 'machine-secret-0123456789',
      grant_types: ['client_credentials'],
      api_scopes: ['reports:read'],
      resource_server: true,
    },
    ...(webhookUrl ? [app('hooks', { webhook: { url: webhookUrl, secret: 'hook-secret-0123456789' } })] : []),
  ],
  ...(webhookUrl ? { webhooks: { allow_insecure_loopback: true }, worker: { embedded: true, concurrency: 100 } } : {}),
  // One API token makes every request of the search measurements.
  rate_limits: { api_per_minute: 1_000_000 },
};

const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
// BENCH_ENTRY: another build of the service (e.g. an earlier commit's dist/, to compare two versions side by side).
const entry = process.env.BENCH_ENTRY ?? 'dist/src/main.js';
const command = start === 'npm' ? [...nodeArgs, '--import', 'tsx', 'src/main.ts', 'serve'] : [...nodeArgs, entry, 'serve'];
const { NODE_ENV: _unset, ...inherited } = process.env;
const service = spawn(process.execPath, command, {
  cwd: ROOT,
  env: {
    ...inherited,
    ...(start === 'dist' ? { NODE_ENV: 'production' } : {}),
    NODE_CONFIG: JSON.stringify(config),
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    SECRET_KEY: 'b'.repeat(64),
    IDP_BOOTSTRAP_TOKEN: API_TOKEN,
    IDP_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: url,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
service.stdout!.resume(); // the log lines, read and dropped
let stopping = false;
service.once('exit', (code) => {
  if (!stopping) {
    console.error(`the service exited with ${code}`);
    process.exit(1);
  }
});

const deadline = Date.now() + 60_000;
for (;;) {
  const ready = await call(`${url}/-/health/ready/`).catch(() => null);
  if (ready?.status === 200) break;
  if (Date.now() > deadline) throw new Error('the service did not become ready within 60 s');
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const api = async (method: string, apiPath: string, body: object, status: number) =>
  expectStatus(
    await call(`${url}/api/v3/core${apiPath}`, {
      method,
      headers: { Authorization: `Bearer ${API_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }),
    status,
    `${method} ${apiPath}`,
  );
/** One person per browser loop and per sign-in loop (the per-account counters count every attempt). */
async function person(name: string): Promise<string> {
  const email = `${name}@example.com`;
  const { pk } = JSON.parse((await api('POST', '/users/', { username: email, email, name }, 201)).body) as { pk: number };
  await api('POST', `/users/${pk}/set_password/`, { password: BENCH_PASSWORD }, 204);
  return email;
}
const browsers: string[] = [];
for (let i = 0; i < LOOPS; i += 1) browsers.push(await person(`browser${i}`));
const people: string[] = [];
for (let i = 0; i < SIGN_IN_LOOPS; i += 1) people.push(await person(`person${i}`));

const paths: BenchFixture['paths'] = {
  discovery: '/application/o/bench/.well-known/openid-configuration',
  jwks: '/application/o/bench/jwks/',
  authorize: '/application/o/authorize/',
  token: '/application/o/token/',
  userinfo: '/application/o/userinfo/',
  introspection: '/application/o/introspect/',
};
announce({
  name: 'service',
  url,
  pid: service.pid!,
  paths,
  client,
  // The introspecting caller is a resource server (ours: its own endpoint); the bare engine lets any client introspect.
  machine: { id: 'machine', secret: 'machine-secret-0123456789', scope: 'reports:read' },
  ...(await signedInFixture({ url, paths }, client, (loop) => withPassword(browsers[loop]!, BENCH_PASSWORD))),
  extras: { apiToken: API_TOKEN, databaseUrl, people, password: BENCH_PASSWORD, bcryptCost: BCRYPT_COST },
});

process.on('SIGTERM', () => {
  stopping = true;
  service.kill('SIGTERM');
  void once(service, 'exit').then(async () => {
    await created.drop();
    await rm(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
});
