/** `idp doctor` run as the real CLI: a healthy setup passes, each broken dependency fails its own line, fast. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase } from '../helpers/database.js';
import { runIdp, type CliResult } from '../helpers/cli.js';
import { REDIS_URL } from '../helpers/redis.js';
import { startSmtpCapture, type SmtpCapture } from '../helpers/smtp.js';
import { migrations } from '../../src/store/migrate.js';
import { freePort } from '../helpers/ports.js';
import { migratedDataDir } from '../helpers/settings.js';
import { startUpstreamProvider } from '../helpers/upstream-provider.js';
import { startSamlIdp } from '../helpers/saml-idp.js';

/** Every migration this release ships, in order (the list doctor checks against). */
const MIGRATIONS = Object.keys(migrations);
const LATEST_MIGRATION = MIGRATIONS.at(-1)!;

const CLIENT_SECRET = 'client-secret-never-printed';
const WEBHOOK_SECRET = 'webhook-secret-never-printed';
const application = {
  slug: 'wiki',
  name: 'Team Wiki',
  client_id: 'wiki',
  client_secret: CLIENT_SECRET,
  redirect_uris: ['https://wiki.example.com/oidc/callback', 'https://wiki.example.com/oidc/callback2'],
  post_logout_redirect_uris: ['https://wiki.example.com/'],
  backchannel_logout_uri: 'https://wiki.example.com/oidc/backchannel',
  webhook: { url: 'https://wiki.example.com/hooks/identity', secret: WEBHOOK_SECRET },
};

// One embedded database for the file, migrated and with a signing key, as after a first deploy.
let dataDir: string;
let smtp: SmtpCapture;
let healthy: Record<string, string>;
beforeAll(async () => {
  dataDir = migratedDataDir('idp-doctor-');
  smtp = await startSmtpCapture();
  // Set explicitly so nothing leaks in from the environment Jest runs in.
  healthy = {
    PORT: String(await freePort()), // nothing listens there: the public URL check has nothing to ask
    IDP_DATA_DIR: dataDir,
    DATABASE_URL: '',
    SECRET_KEY: '',
    REDIS_URL,
    SMTP_URL: smtp.url,
    NODE_CONFIG: JSON.stringify({ applications: [application] }),
  };
  expect((await runIdp(['migrate'], healthy)).code).toBe(0);
  expect((await runIdp(['keys', 'rotate'], healthy)).code).toBe(0);
}, 90_000);
afterAll(async () => {
  await smtp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const lines = (result: CliResult) => result.stdout.trim().split('\n');
const lineOf = (result: CliResult, check: string) => lines(result).find((line) => line.slice(5).startsWith(`${check}:`)) ?? '';
const statusOf = (result: CliResult, check: string) => lineOf(result, check).slice(0, 4).trim();
const failed = (result: CliResult) =>
  lines(result)
    .filter((line) => line.startsWith('FAIL '))
    .map((line) => line.slice(5).split(':')[0]);

async function timed(args: string[], env: Record<string, string>): Promise<CliResult & { ms: number }> {
  const started = Date.now();
  const result = await runIdp(args, env);
  return { ...result, ms: Date.now() - started };
}

/** Accepts TCP connections and never says a word: without timeouts a client would wait on it forever. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('a healthy setup: every line ok, exit 0, no secret printed', async () => {
  const result = await runIdp(['doctor'], healthy);
  expect(result.code).toBe(0);
  // The public URL is asked of a running service; with none running, that one line says it checked nothing.
  expect(lineOf(result, 'public URL')).toBe(
    `warn public URL: not checked: no service answers at http://localhost:${healthy.PORT} or http://127.0.0.1:${healthy.PORT}; run doctor again while \`idp serve\` runs`,
  );
  for (const line of lines(result).filter((line) => !line.includes(' public URL: '))) expect(line).toMatch(/^ok {3}\S/);
  for (const check of ['config', 'issuer', 'application wiki', 'database', 'migrations', 'signing keys', 'clock', 'redis', 'smtp']) {
    expect(statusOf(result, check)).toBe('ok');
  }
  expect(lineOf(result, 'application wiki')).toContain('2 redirect, 1 post-logout, 1 backchannel, 1 webhook');
  expect(lineOf(result, 'migrations')).toContain(LATEST_MIGRATION);
  const output = result.stdout + result.stderr;
  for (const secret of [CLIENT_SECRET, WEBHOOK_SECRET, readFileSync(path.join(dataDir, 'secret.key'), 'utf8').trim()]) {
    expect(output).not.toContain(secret);
  }
}, 60_000);

test('upstream identity providers: discovery read (the redirect URI to register named), an unreachable one and missing SAML metadata FAIL, no secret printed', async () => {
  const [upstream, saml] = await Promise.all([startUpstreamProvider(), startSamlIdp()]);
  upstream.register([]);
  const secret = 'upstream-secret-never-printed';
  const nothingThere = await freePort();
  const source = (slug: string, extra: Record<string, unknown>) => ({
    slug,
    name: slug,
    client_id: `idp-${slug}`,
    client_secret: secret,
    ...extra,
  });
  try {
    const result = await runIdp(['doctor'], {
      ...healthy,
      NODE_CONFIG: JSON.stringify({
        applications: [application],
        sources: [
          source('corp', { type: 'oidc', issuer: upstream.issuer }),
          source('pinned', { type: 'oidc', issuer: upstream.issuer, id_token_signed_response_alg: 'EdDSA' }),
          source('gone', { type: 'oidc', issuer: `http://127.0.0.1:${nothingThere}` }),
          source('plain', {
            type: 'oauth2',
            authorization_url: `${upstream.issuer}/auth`,
            token_url: `${upstream.issuer}/token`,
            userinfo_url: `${upstream.issuer}/me`,
          }),
          { slug: 'adfs', type: 'saml', name: 'ADFS', idp_metadata_url: saml.metadataUrl },
          { slug: 'moved', type: 'saml', name: 'Moved', idp_metadata_url: `${saml.metadataUrl}/moved` },
        ],
      }),
    });
    expect(result.code).toBe(1);
    expect(lineOf(result, 'source corp')).toBe(
      `ok   source corp: discovery at ${upstream.issuer} read (issuer matches, RS256 offered); register http://localhost:${healthy.PORT}/source/oauth/callback/corp/ there`,
    );
    expect(statusOf(result, 'source pinned')).toBe('warn');
    expect(lineOf(result, 'source pinned')).toContain('does not offer EdDSA for ID tokens (it offers RS256)');
    expect(statusOf(result, 'source gone')).toBe('FAIL');
    expect(lineOf(result, 'source gone')).toContain('cannot be read (ECONNREFUSED): nobody can sign in through gone');
    expect(statusOf(result, 'source plain')).toBe('ok');
    // The test IdP's certificate lives two days: the metadata reads, and the line warns of the expiry.
    expect(statusOf(result, 'source adfs')).toBe('warn');
    expect(lineOf(result, 'source adfs')).toContain(
      `metadata of ${saml.entityId} read (sign-on at ${saml.ssoUrl}); its signing certificate expires on`,
    );
    // The service's own reading of the metadata (saml-metadata.ts), with its words for what went wrong.
    expect(lineOf(result, 'source moved')).toContain('cannot be read (the metadata URL answered 404): nobody can sign in through Moved');
    expect(failed(result)).toEqual(['source gone', 'source moved']);
    expect(result.stdout + result.stderr).not.toContain(secret);
  } finally {
    await upstream.close();
    await saml.close();
  }
}, 60_000);

test('Redis unreachable: a FAIL line for Redis, exit 1, quickly, without the URL password', async () => {
  const result = await timed(['doctor'], { ...healthy, REDIS_URL: 'redis://:redis-password-never-printed@127.0.0.1:1' });
  expect(result.code).toBe(1);
  expect(failed(result)).toEqual(['redis']);
  expect(lineOf(result, 'redis')).toContain('redis://127.0.0.1:1');
  expect(result.stderr).toContain('1 check failed: redis');
  expect(statusOf(result, 'database')).toBe('ok');
  expect(result.stdout + result.stderr).not.toContain('redis-password-never-printed');
  expect(result.ms).toBeLessThan(20_000);
}, 60_000);

test('PostgreSQL, Redis and SMTP that accept but never answer: each fails on its timeout, and doctor still ends', async () => {
  // Without timeouts pg waits forever, nodemailer 30 s for the greeting and ioredis retries without end.
  const silent = await silentServer();
  try {
    const at = `127.0.0.1:${silent.port}`;
    const result = await timed(['doctor'], {
      ...healthy,
      DATABASE_URL: `postgres://idp:db-password-never-printed@${at}/idp`,
      REDIS_URL: `redis://${at}`,
      SMTP_URL: `smtp://${at}`,
    });
    expect(result.code).toBe(1);
    expect(failed(result).sort()).toEqual(['database', 'redis', 'smtp']);
    expect(lineOf(result, 'database')).toContain(`postgres://${at}/idp`);
    expect(result.stdout + result.stderr).not.toContain('db-password-never-printed');
    expect(result.ms).toBeLessThan(20_000);
  } finally {
    await silent.close();
  }
}, 60_000);

test('secrets.key other than the one that sealed the signing keys: FAIL naming secrets.key', async () => {
  const otherKey = 'f'.repeat(64);
  const result = await runIdp(['doctor'], { ...healthy, SECRET_KEY: otherKey });
  expect(result.code).toBe(1);
  expect(failed(result)).toEqual(['signing keys']);
  expect(lineOf(result, 'signing keys')).toContain('cannot be decrypted with secrets.key');
  expect(result.stdout + result.stderr).not.toContain(otherKey);
}, 60_000);

test('a bad configuration: one FAIL line for config and nothing else checked', async () => {
  const badPort = await runIdp(['doctor'], { ...healthy, PORT: 'abc' });
  expect(badPort.code).toBe(1);
  expect(lines(badPort)).toEqual([expect.stringMatching(/^FAIL config: PORT="abc" is not a valid value/)]);
  expect(badPort.stderr).toContain('1 check failed: config');

  const badTtl = await runIdp(['doctor'], { ...healthy, NODE_CONFIG: JSON.stringify({ tokens: { access_token_ttl: 0 } }) });
  expect(badTtl.code).toBe(1);
  expect(lines(badTtl)).toEqual(['FAIL config: tokens.access_token_ttl must be an integer ≥ 1; nothing else was checked']);
}, 60_000);

test('the embedded database held by a running server: a warning, not a crash', async () => {
  // The lock names a live process (this one), as a running `idp serve` would.
  const lock = path.join(dataDir, 'db.lock');
  writeFileSync(lock, String(process.pid), { flag: 'wx' });
  try {
    const result = await runIdp(['doctor'], healthy);
    expect(result.code).toBe(0);
    expect(lineOf(result, 'database')).toBe(
      'warn database: embedded database in use by a running server; checked nothing there (schema, signing keys, clock): stop it to check them',
    );
    expect(lineOf(result, 'signing keys')).toBe('');
    expect(statusOf(result, 'redis')).toBe('ok');
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid)); // doctor left the server's lock alone
  } finally {
    rmSync(lock, { force: true });
  }
}, 60_000);

test('an embedded database that does not exist yet: FAIL, and doctor does not create it', async () => {
  const empty = mkdtempSync(path.join(os.tmpdir(), 'idp-doctor-empty-'));
  try {
    const result = await runIdp(['doctor'], { ...healthy, IDP_DATA_DIR: empty });
    expect(result.code).toBe(1);
    expect(lineOf(result, 'database')).toMatch(/^FAIL database: no embedded database .* yet: run `idp migrate`/);
    expect(readdirSync(empty)).toEqual([]);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}, 60_000);

(process.env.TEST_DATABASE_URL ? test : test.skip)(
  'PostgreSQL not yet migrated: FAIL listing the pending migrations; ok once migrated',
  async () => {
    const database = await createPostgresDatabase();
    try {
      const env = { ...healthy, DATABASE_URL: database.url };
      const before = await runIdp(['doctor'], env);
      expect(before.code).toBe(1);
      expect(failed(before)).toEqual(['migrations']);
      expect(lineOf(before, 'migrations')).toBe(
        `FAIL migrations: ${MIGRATIONS.length} pending: ${MIGRATIONS.join(', ')}; run \`idp migrate\` (\`idp serve\` also applies them at start)`,
      );
      expect(statusOf(before, 'clock')).toBe('ok');

      expect((await runIdp(['migrate'], env)).code).toBe(0);
      const after = await runIdp(['doctor'], env);
      expect(after.code).toBe(0);
      expect(statusOf(after, 'migrations')).toBe('ok');
      // No key yet on this database: serve creates it at start, so that is a warning only.
      expect(statusOf(after, 'signing keys')).toBe('warn');
    } finally {
      await database.drop();
    }
  },
  90_000,
);

test('an application signing with an algorithm that has no key yet: a warning naming it; ok with the key of each algorithm once it exists', async () => {
  const env = {
    ...healthy,
    NODE_CONFIG: JSON.stringify({
      applications: [application, { ...application, slug: 'chat', client_id: 'chat', id_token_signed_response_alg: 'EdDSA' }],
    }),
  };
  const before = await runIdp(['doctor'], env);
  expect(before.code).toBe(0);
  expect(lineOf(before, 'signing keys')).toBe(
    'warn signing keys: 1 stored, no active EdDSA key (an application signs with it): `idp serve` creates it at start',
  );

  // A rotation under this configuration creates the algorithm's key too (as a start of serve would).
  const rotated = await runIdp(['keys', 'rotate'], env);
  expect(rotated.stdout).toMatch(/^new active RS256 signing key \S+\nnew active EdDSA signing key \S+\n$/);
  const after = await runIdp(['doctor'], env);
  expect(lineOf(after, 'signing keys')).toMatch(
    /^ok {3}signing keys: 3 stored, active RS256 \S+, EdDSA \S+; all decrypt with secrets\.key/,
  );
}, 90_000);
