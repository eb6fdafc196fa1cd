/**
 * The service for `npm run bench`, as `idp serve` runs it in production: PostgreSQL (a fresh database on
 * TEST_DATABASE_URL's server), Redis for rate limits when REDIS_URL is set, one process. Runs as its own process;
 * prints READY with its fixture (tokens and a session made with the engine's models, stored by our adapter).
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { startService } from '../../src/service.js';
import { createLogger } from '../../src/observability/logger.js';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { loadSettings } from '../../src/settings/load.js';
import { createUser } from '../../src/domain/users.js';
import { hashPassword } from '../../src/domain/passwords.js';
import { createPostgresDatabase } from '../helpers/database.js';
import { benchDatabaseUrl } from './database-url.js';
import { algClientId, announce, LOOPS, OTHER_ALGS, seedSignedWith, seedTokens, SIGN_IN_LOOPS } from './fixture.js';
import { API_SCOPES, createApiToken } from '../../src/domain/api-tokens.js';

const BENCH_PASSWORD = 'correct horse battery staple';

const created = await createPostgresDatabase();
const pg = { ...created, url: benchDatabaseUrl(created.url) };
const database = await openDatabase({ url: pg.url, poolSize: 20 });
await migrateToLatest(database.db);
const store = createStore(database.db);

const server = http.createServer();
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const redirectUri = 'http://127.0.0.1:1/cb';
const client = { id: 'bench', secret: 'bench-secret-0123456789', redirectUri };
const redis = Boolean(process.env.REDIS_URL);
// BENCH_WEBHOOK_URL: a process that delivers webhooks (the embedded workers) to the driver's receiver.
const webhookUrl = process.env.BENCH_WEBHOOK_URL;
const settings = await loadSettings({
  overrides: {
    issuer: { base_url: url },
    secrets: { key: 'b'.repeat(64) },
    log: { level: 'silent' },
    ...(redis ? { redis: { url: process.env.REDIS_URL, prefix: `bench${process.pid}` } } : {}),
    applications: [
      { slug: 'bench', name: 'Bench', client_id: 'bench', client_secret: 'bench-secret-0123456789', redirect_uris: [redirectUri] },
      // The same application signing its ID tokens with ES256 and with EdDSA (the `(ES256)` and `(EdDSA)` scenarios).
      ...OTHER_ALGS.map((alg) => ({
        slug: algClientId(alg),
        name: `Bench ${alg}`,
        client_id: algClientId(alg),
        client_secret: client.secret,
        redirect_uris: [redirectUri],
        id_token_signed_response_alg: alg,
      })),
      {
        slug: 'machine',
        name: 'Machine',
        client_id: 'machine',
        client_secret: 'machine-secret-0123456789',
        grant_types: ['client_credentials'],
        api_scopes: ['reports:read'],
        resource_server: true,
      },
      ...(webhookUrl
        ? [
            {
              slug: 'hooks',
              name: 'Hooks',
              client_id: 'hooks',
              client_secret: 'hooks-secret-0123456789',
              redirect_uris: [redirectUri],
              webhook: { url: webhookUrl, secret: 'hook-secret-0123456789' },
            },
          ]
        : []),
    ],
    database: { url: pg.url, pool_size: 20 },
    webhooks: { allow_insecure_loopback: true },
    worker: { concurrency: 100 },
    // One API token makes every request of the search measurements.
    rate_limits: { api_per_minute: 1_000_000 },
  },
});
const service = await startService(settings, {
  store,
  database,
  server,
  logger: createLogger('silent'),
  redis,
  workers: Boolean(webhookUrl),
});
const user = await createUser(store, { username: 'ada@example.com', email: 'ada@example.com', name: 'Ada Lovelace' });
// People for the password sign-ins: one each per loop (the per-account counters count every attempt).
const people: string[] = [];
for (let i = 0; i < SIGN_IN_LOOPS; i += 1) {
  const person = await createUser(store, { username: `person${i}@example.com`, email: `person${i}@example.com`, name: `Person ${i}` });
  await store.credentials.setPasswordHash(person.pk, await hashPassword(BENCH_PASSWORD, settings.passwords.bcrypt_cost));
  people.push(person.email);
}
const { token: apiToken } = await createApiToken(store, { name: 'bench', scopes: [...API_SCOPES] });

const seeded = await seedTokens(service.providers.bySlug.get('bench')!.provider, {
  clientId: 'bench',
  accountId: user.uuid,
  cookieKeys: service.providers.cookieKeys,
  count: LOOPS * 2,
});
const signedWith = await seedSignedWith((alg) => service.providers.bySlug.get(algClientId(alg))!.provider, {
  client,
  accountId: user.uuid,
  count: LOOPS,
});
announce({
  name: 'service',
  url,
  pid: process.pid,
  paths: {
    discovery: '/application/o/bench/.well-known/openid-configuration',
    jwks: '/application/o/bench/jwks/',
    authorize: '/application/o/authorize/',
    token: '/application/o/token/',
    userinfo: '/application/o/userinfo/',
    introspection: '/application/o/introspect/',
  },
  client,
  // The introspecting caller is a resource server (ours: its own endpoint); the bare engine lets any client introspect.
  machine: { id: 'machine', secret: 'machine-secret-0123456789', scope: 'reports:read' },
  ...seeded,
  signedWith,
  extras: { apiToken, databaseUrl: pg.url, people, password: BENCH_PASSWORD, bcryptCost: settings.passwords.bcrypt_cost },
});
process.on('SIGTERM', () => {
  void service.close().then(async () => {
    await database.close();
    await pg.drop();
    process.exit(0);
  });
});
