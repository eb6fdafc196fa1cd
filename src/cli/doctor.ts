/** `idp doctor`: the operator's self-check before or after a deploy — one line per check, exit 1 when one fails. */
import { createPrivateKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { migrations } from '../store/migrate.js';
import pg from 'pg';
import { Redis } from 'ioredis';
import nodemailer from 'nodemailer';
import { ConfigError, loadSettings } from '../settings/load.js';
import type { Settings } from '../settings/schema.js';
import { isLoopbackHost } from '../loopback.js';
import { openDatabase, type Database } from '../store/database.js';
import { EmbeddedDatabaseBusy, lockEmbeddedDatabase } from '../store/embedded-lock.js';
import { createStore } from '../store/store.js';
import type { Tables } from '../store/tables.js';
import type { Store } from '../store/contract.js';
import { decryptJwk, signingAlgsOf } from '../domain/signing-keys.js';
import { print } from './context.js';
import { fail, NETWORK_TIMEOUT_MS, ok, warn, type Finding } from './findings.js';
import { checkPublicUrl } from './doctor-public-url.js';
import { checkSources } from './doctor-sources.js';

/** Redis's check waits this long; the other network checks NETWORK_TIMEOUT_MS. */
const REDIS_TIMEOUT_MS = 2000;
/** Token lifetimes and one-time codes tolerate a little drift; a minute breaks them. */
const CLOCK_WARN_MS = 5_000;
const CLOCK_FAIL_MS = 60_000;

export function doctorCommands(program: Command): void {
  program
    .command('doctor')
    .description(
      'check configuration, the public URL, database and schema, Redis, SMTP, signing keys, upstream identity providers, URLs and clock; exit 1 when a check fails',
    )
    .action(async () => {
      process.exitCode = await doctor();
    });
}

async function doctor(): Promise<number> {
  let settings: Settings;
  try {
    // readOnly: a check must not create <data_dir>/secret.key; the signing-key check reads it when it exists.
    settings = await loadSettings({ readOnly: true });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Every problem on its own line; the last says that the other checks wait for the configuration.
    const problems = error.problems.map((problem, i, all) =>
      fail('config', `${problem.replace(/^config: /, '')}${i === all.length - 1 ? '; nothing else was checked' : ''}`),
    );
    return report(problems, []);
  }
  const findings = [ok('config', describeConfig(settings)), checkIssuer(settings), ...checkApplications(settings)];
  // Side by side, so unreachable services cost one timeout rather than their sum. Except beside PGlite: it starts on
  // this thread, and a busy thread would let the network checks' timers fire before their answers are read.
  const network = () =>
    Promise.all([checkPublicUrl(settings), checkRedis(settings.redis.url), checkSmtp(settings), checkSources(settings)]);
  let database: Finding[], publicUrl: Finding, redis: Finding, smtp: Finding[], sources: Finding[];
  if (settings.database.url) {
    [database, [publicUrl, redis, smtp, sources]] = await Promise.all([checkDatabase(settings), network()]);
  } else {
    [publicUrl, redis, smtp, sources] = await network();
    database = await checkDatabase(settings);
  }
  return report([...findings, publicUrl, ...database, redis, ...smtp, ...sources], secretsOf(settings));
}

/** Prints the checklist (secrets masked, whatever a library put in an error message) and returns the exit code. */
function report(findings: Finding[], secrets: string[]): number {
  const mask = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('***'), text);
  for (const { status, check, detail } of findings) print(mask(`${status.padEnd(4)} ${check}: ${detail}`));
  const failed = [...new Set(findings.filter((finding) => finding.status === 'FAIL').map((finding) => finding.check))];
  if (!failed.length) return 0;
  process.stderr.write(`doctor: ${failed.length} check${failed.length > 1 ? 's' : ''} failed: ${failed.join(', ')}\n`);
  return 1;
}

/** Every value of the configuration that must never appear in the output. */
function secretsOf(settings: Settings): string[] {
  const urlSecrets = [settings.database.url, settings.redis.url, settings.mail.smtp_url].flatMap((value) => {
    if (!value || !URL.canParse(value)) return [];
    const url = new URL(value);
    return [url.password, decodeURIComponent(url.password)];
  });
  const appSecrets = settings.applications.flatMap((app) => [app.client_secret, app.webhook?.secret, app.webhook?.previous_secret]);
  const sourceSecrets = settings.sources.map((source) => source.client_secret);
  return [
    settings.secrets.key,
    secretKeyFile(settings)?.value,
    settings.bootstrap.token,
    settings.metrics.token,
    ...urlSecrets,
    ...appSecrets,
    ...sourceSecrets,
  ].filter((value): value is string => typeof value === 'string' && value.length >= 4);
}

/** scheme://host:port/path of a URL, without user, password or query: safe to print. */
function where(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}

const reason = (error: unknown) => (error as Error)?.message?.split('\n')[0] || String(error);

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s (${what})`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function describeConfig(settings: Settings): string {
  const database = settings.database.url
    ? `PostgreSQL at ${where(settings.database.url)}`
    : `embedded PGlite in ${path.join(settings.data_dir, 'db')}`;
  const apps = settings.applications.length;
  return `valid (NODE_ENV=${process.env.NODE_ENV ?? 'development'}; database: ${database}; ${apps} application${apps === 1 ? '' : 's'})`;
}

function checkIssuer(settings: Settings): Finding {
  const base = settings.issuer.base_url;
  const url = new URL(base);
  if (url.protocol === 'https:') return ok('issuer', `${base} (https)`);
  if (process.env.NODE_ENV === 'production') {
    return warn(
      'issuer',
      `issuer.base_url ${base} is plain http while NODE_ENV=production: set BASE_URL to the https origin users reach (TLS may end at a proxy)`,
    );
  }
  if (!isLoopbackHost(url.hostname)) {
    return warn(
      'issuer',
      `issuer.base_url ${base} is plain http on a non-loopback host: codes, tokens and cookies would cross the network in clear; use https`,
    );
  }
  return ok('issuer', `${base} (http on loopback: this machine only)`);
}

/**
 * Validation already refused URLs that break the https rules; this line shows what each application registered,
 * and flags receivers still on loopback http (webhooks.allow_insecure_loopback) in production.
 */
function checkApplications(settings: Settings): Finding[] {
  if (!settings.applications.length)
    return [warn('applications', 'none configured: no application can sign users in yet (docs/integrating.md)')];
  return settings.applications.map((app) => {
    const receivers = [app.backchannel_logout_uri, app.webhook?.url].filter((uri): uri is string => uri !== undefined);
    const counts =
      `${app.redirect_uris.length} redirect, ${app.post_logout_redirect_uris.length} post-logout, ` +
      `${app.backchannel_logout_uri ? 1 : 0} backchannel, ${app.webhook ? 1 : 0} webhook URL(s)`;
    const plain = receivers.filter((uri) => new URL(uri).protocol === 'http:');
    if (plain.length && process.env.NODE_ENV === 'production') {
      return warn(
        `application ${app.slug}`,
        `${counts}; ${plain.join(', ')} is plain http in production (webhooks.allow_insecure_loopback): use https receivers`,
      );
    }
    return ok(`application ${app.slug}`, `${counts}; https rules hold`);
  });
}

/** Opens the database without migrating it: doctor reports the schema, it never changes it. */
async function checkDatabase(settings: Settings): Promise<Finding[]> {
  const embedded = !settings.database.url;
  const target = embedded ? `embedded database ${path.join(settings.data_dir, 'db')}` : where(settings.database.url);
  let unlock = () => {};
  let database: Database | undefined;
  try {
    if (embedded) {
      const dir = path.join(settings.data_dir, 'db');
      // Opening PGlite on a missing folder would create an empty database: report it instead.
      if (!existsSync(dir)) return [fail('database', `no ${target} yet: run \`idp migrate\` (or start \`idp serve\`) to create it`)];
      try {
        unlock = lockEmbeddedDatabase(settings.data_dir);
      } catch (error) {
        if (!(error instanceof EmbeddedDatabaseBusy)) throw error;
        return [
          warn(
            'database',
            'embedded database in use by a running server; checked nothing there (schema, signing keys, clock): stop it to check them',
          ),
        ];
      }
      database = await openDatabase({ url: '', dataDir: dir });
    } else {
      database = openPostgres(settings.database.url);
    }
    const sent = Date.now();
    const { rows } = await withTimeout(
      sql<{ now: Date | string }>`select now() as now`.execute(database.db),
      NETWORK_TIMEOUT_MS,
      'select now()',
    );
    const received = Date.now();
    const findings = [ok('database', `${target} answers (${received - sent} ms)`)];
    const migrations = await checkMigrations(database.db);
    findings.push(migrations.finding);
    findings.push(
      migrations.current
        ? await checkSigningKeys(createStore(database.db), settings)
        : warn('signing keys', 'not checked: the schema is not the one this release expects (see migrations)'),
    );
    // The database's clock read halfway through the round trip, against this machine's.
    findings.push(checkClock(new Date(rows[0]!.now).getTime() - (sent + received) / 2, embedded));
    return findings;
  } catch (error) {
    const remedy = embedded
      ? 'check the folder and its permissions'
      : 'check database.url (DATABASE_URL) and that PostgreSQL is up and reachable from here';
    return [fail('database', `${target} did not answer: ${reason(error)}; ${remedy} (schema, signing keys and clock not checked)`)];
  } finally {
    await database?.close().catch(() => {});
    unlock();
  }
}

/** Like openDatabase, but one connection and a shorter wait: doctor must finish in seconds when PostgreSQL is away. */
function openPostgres(url: string): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: NETWORK_TIMEOUT_MS,
    query_timeout: NETWORK_TIMEOUT_MS,
  });
  pool.on('error', () => {});
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { db, engine: 'postgres', close: () => db.destroy() };
}

async function checkMigrations(db: Kysely<Tables>): Promise<{ finding: Finding; current: boolean }> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const known = await migrator.getMigrations(); // reads kysely_migration; creates nothing
  const pending = known.filter((migration) => !migration.executedAt).map((migration) => migration.name);
  const applied = known.length - pending.length;
  // A database migrated by a newer release: migrateToLatest (every start) refuses it as corrupted.
  const names = new Set(known.map((migration) => migration.name));
  const executed = applied ? (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((row) => row.name) : [];
  const unknown = executed.filter((name) => !names.has(name));
  if (unknown.length) {
    return {
      current: false,
      finding: fail(
        'migrations',
        `the database has migrations this release does not know (${unknown.join(', ')}): a newer release migrated it; run that release, or restore a backup from before`,
      ),
    };
  }
  if (pending.length) {
    return {
      current: false,
      finding: fail(
        'migrations',
        `${pending.length} pending: ${pending.join(', ')}; run \`idp migrate\` (\`idp serve\` also applies them at start)`,
      ),
    };
  }
  return { current: true, finding: ok('migrations', `at the latest (${known.at(-1)?.name ?? 'none'}, ${applied} applied)`) };
}

/** secrets.key as the service will use it: configured, or the one generated into <data_dir>/secret.key (read, never created). */
function secretKeyFile(settings: Settings): { value: string; source: string } | undefined {
  if (settings.secrets.key) return { value: settings.secrets.key, source: 'configuration' };
  const file = path.join(settings.data_dir, 'secret.key');
  if (!existsSync(file)) return undefined;
  const value = readFileSync(file, 'utf8').trim();
  return value ? { value, source: file } : undefined;
}

/** Every stored key must open with secrets.key: the service loads all of them at start and stops on the first that does not. */
async function checkSigningKeys(store: Store, settings: Settings): Promise<Finding> {
  const rows = await store.signingKeys.list();
  if (!rows.length) return warn('signing keys', 'none yet: `idp serve` creates the first at start (or run `idp keys rotate`)');
  const secret = secretKeyFile(settings);
  if (!secret) {
    return fail(
      'signing keys',
      `${rows.length} stored, but secrets.key is not set and ${path.join(settings.data_dir, 'secret.key')} is missing: set secrets.key (SECRET_KEY) to the key that sealed them`,
    );
  }
  const unreadable = rows.filter((row) => {
    try {
      // Decrypting proves the secret; importing proves what came out is a usable private key.
      createPrivateKey({ key: decryptJwk(row.kid, row.encrypted_jwk, secret.value), format: 'jwk' });
      return false;
    } catch {
      return true;
    }
  });
  if (unreadable.length) {
    return fail(
      'signing keys',
      `${unreadable.length} of ${rows.length} cannot be decrypted with secrets.key (from ${secret.source}): it differs from the key that sealed them; ` +
        'set secrets.key (SECRET_KEY) back to that key, or the service cannot sign ID tokens',
    );
  }
  const active = rows.filter((row) => row.state === 'active');
  // `idp serve` creates the missing ones at start; until one has, `idp worker` cannot sign logout tokens.
  const missing = signingAlgsOf(settings.applications).filter((alg) => !active.some((row) => row.alg === alg));
  if (missing.length) {
    return warn(
      'signing keys',
      `${rows.length} stored, no active ${missing.join(', ')} key (an application signs with it): \`idp serve\` creates it at start`,
    );
  }
  const activeKids = active.map((row) => `${row.alg} ${row.kid}`).join(', ');
  return ok('signing keys', `${rows.length} stored, active ${activeKids}; all decrypt with secrets.key (from ${secret.source})`);
}

function checkClock(skewMs: number, embedded: boolean): Finding {
  const seconds = Math.abs(skewMs) < 1000 ? `${Math.round(Math.abs(skewMs))} ms` : `${(Math.abs(skewMs) / 1000).toFixed(1)} s`;
  const direction = skewMs > 0 ? 'ahead of' : 'behind';
  const remedy = 'sync both clocks (NTP): token lifetimes, one-time codes and expiry sweeps depend on them';
  if (Math.abs(skewMs) > CLOCK_FAIL_MS) return fail('clock', `the database clock is ${seconds} ${direction} this machine's; ${remedy}`);
  if (Math.abs(skewMs) > CLOCK_WARN_MS) return warn('clock', `the database clock is ${seconds} ${direction} this machine's; ${remedy}`);
  return ok('clock', `the database clock is within ${seconds} of this machine's${embedded ? ' (embedded: the same clock)' : ''}`);
}

async function checkRedis(url: string): Promise<Finding> {
  const target = where(url || 'redis://127.0.0.1:6379');
  // No retries and no offline queue: one attempt, answered or failed within the timeout.
  const client = new Redis(url || 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    connectTimeout: REDIS_TIMEOUT_MS,
    commandTimeout: REDIS_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The rejected call only says "Connection is closed."; the error event says why (refused, timed out, auth).
  let cause: unknown;
  client.on('error', (error) => (cause ??= error));
  const started = Date.now();
  try {
    await withTimeout(
      client.connect().then(() => client.ping()),
      REDIS_TIMEOUT_MS,
      'PING',
    );
    return ok('redis', `${target} answered PING in ${Date.now() - started} ms`);
  } catch (error) {
    return fail(
      'redis',
      `${target} did not answer PING (${reason(cause ?? error)}): start Redis or fix redis.url (REDIS_URL); deliveries and mail wait for it`,
    );
  } finally {
    client.disconnect();
  }
}

/** Only when SMTP is configured: without it messages go to <data_dir>/mail/, fine on a laptop, not in production. */
async function checkSmtp(settings: Settings): Promise<Finding[]> {
  const url = settings.mail.smtp_url;
  if (!url) {
    return process.env.NODE_ENV === 'production'
      ? [warn('smtp', 'mail.smtp_url is empty: password-setup codes are written to <data_dir>/mail/ instead of sent; set SMTP_URL')]
      : [];
  }
  const target = where(url);
  const transport = nodemailer.createTransport({
    url,
    connectionTimeout: NETWORK_TIMEOUT_MS,
    greetingTimeout: NETWORK_TIMEOUT_MS,
    socketTimeout: NETWORK_TIMEOUT_MS,
    dnsTimeout: NETWORK_TIMEOUT_MS,
  });
  const started = Date.now();
  try {
    // verify(): connect, greeting, STARTTLS and login when the URL has credentials; sends nothing.
    await withTimeout(transport.verify(), NETWORK_TIMEOUT_MS + 500, 'SMTP');
    return [ok('smtp', `${target} accepted the connection${new URL(url).username ? ' and the login' : ''} (${Date.now() - started} ms)`)];
  } catch (error) {
    return [
      fail(
        'smtp',
        `${target} did not accept the connection (${reason(error)}): check mail.smtp_url (SMTP_URL) and that the server is reachable from here`,
      ),
    ];
  } finally {
    transport.close();
  }
}
