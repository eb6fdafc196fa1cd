/**
 * `npm run test:load`: the service under load, with real parts only — PostgreSQL (TEST_DATABASE_URL), Redis
 * (REDIS_URL), the real HTTP server with the sign-in pages, the outbox relay and the delivery workers, and real
 * HTTP receivers on 127.0.0.1.
 *
 *   a. 200 concurrent sign-ins through the pages (e-mail → password → callback → code exchange), one user each.
 *   b. 2,000 refresh-token grants over those users, 32 at a time, each using the refresh token the last one returned.
 *   c. 10,000 user_updated events (domain updateUser, one transaction each) to 4 webhook receivers, two healthy and
 *      two answering 500 at random half the time; fast retries (4 attempts at most).
 *
 * Only correctness is asserted (no errors, nothing lost, attempts bounded); timings are printed and written to
 * docs/performance.md. The run stops by itself: a hard overall deadline closes every server and exits non-zero.
 * Tunables (defaults in brackets): LOAD_DEADLINE_SECONDS [540], LOAD_SETTLE_SECONDS [330], LOAD_SEED [random],
 * LOAD_WRITE_DOCS [1; 0 = print only].
 */
import { createHmac, randomInt } from 'node:crypto';
import { Writable } from 'node:stream';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { sql } from 'kysely';
import type { OidcTestServer } from '../helpers/oidc-server.js';
import type { Receiver } from '../helpers/receiver.js';
import type { Outcome } from './harness.js';
import type { Machine } from './figures.js';

if (process.env.NODE_ENV === undefined) process.env.NODE_ENV = 'test';
if (process.env.NODE_ENV !== 'test') {
  console.error(`load test: NODE_ENV must be "test" (config/test.yaml: bcrypt cost 4, high per-IP limits), not "${process.env.NODE_ENV}"`);
  process.exit(2);
}
// Read when the helpers load (test/helpers/database.ts): set the documented default first.
process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';

const { createLogger } = await import('../../src/observability/logger.js');
const { updateUser } = await import('../../src/domain/users.js');
const { startOidcServer, PASSWORD } = await import('../helpers/oidc-server.js');
const { CookieClient, httpSignIn, redeemCode } = await import('../helpers/http-client.js');
const { startReceiver } = await import('../helpers/receiver.js');
const { webhookSettings } = await import('../helpers/webhooks.js');
const { REDIS_URL } = await import('../helpers/redis.js');
const { ROOT } = await import('../helpers/paths.js');
const { machineLine, machineParagraph, percentile, prng, readMachine, round, runBounded } = await import('./figures.js');
const { deleteRedisKeys, describeError, sample, sleep, startHarness } = await import('./harness.js');

const SIGN_INS = 200;
const TOKEN_REQUESTS = 2_000;
const TOKEN_CONCURRENCY = 32;
const EVENTS = 10_000;
const EVENT_CONCURRENCY = 16;
const WORKER_CONCURRENCY = 50;
const FAILURE_RATE = 0.5;
const MAX_ATTEMPTS = 4; // webhooks.retries 3 + 1
// Bounds, not targets: throughput is issue #12's (docs/performance.md); a busy 2-core runner needs the headroom.
const DEADLINE_MS = Number(process.env.LOAD_DEADLINE_SECONDS ?? 540) * 1000;
const SETTLE_MS = Number(process.env.LOAD_SETTLE_SECONDS ?? 330) * 1000;
const SEED = Number(process.env.LOAD_SEED ?? randomInt(1, 2 ** 31));
const WEBHOOK_SECRET = 'whsec-load-0123456789abcdef';

const harness = startHarness('load test', DEADLINE_MS);
const { log, expectThat, outcomes } = harness;

// ---------------------------------------------------------------------------------------------- service log

/** What the service logged at warn or above, and every request line answered 5xx. */
const serviceLog = { lines: 0, receiver500Warnings: 0, unexpected: [] as string[], unexpectedCount: 0 };
const logSink = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    for (const text of chunk.toString('utf8').split('\n')) {
      if (!text.trim()) continue;
      serviceLog.lines++;
      let line: { level?: number; msg?: string; status?: number; reason?: string; err?: unknown };
      try {
        line = JSON.parse(text);
      } catch {
        line = { level: 60, msg: text };
      }
      const expectedWarning = line.level === 40 && line.msg === 'delivery attempt failed' && line.reason === 'receiver answered 500';
      if (expectedWarning) serviceLog.receiver500Warnings++;
      else if ((line.level ?? 0) >= 40 || (typeof line.status === 'number' && line.status >= 500)) {
        serviceLog.unexpectedCount++;
        if (serviceLog.unexpected.length < 10) serviceLog.unexpected.push(text.slice(0, 800));
      }
    }
    callback();
  },
});
const logger = createLogger('info', logSink);

// ---------------------------------------------------------------------------------------------- lifecycle

let idp: OidcTestServer | undefined;
const receivers: Receiver[] = [];
let redisPrefix: string | undefined;
let serviceClosed = false;
harness.onCleanup('identity service', async () => {
  await idp?.close();
  serviceClosed = true;
});
// The service did not close in time (e.g. stopped mid-run by the deadline): drop its database anyway.
harness.onCleanup('test database', async () => {
  const url = idp?.db.url;
  if (serviceClosed || !url) return;
  const name = new URL(url).pathname.slice(1);
  const pg = await import('pg');
  const admin = new pg.default.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${name}" with (force)`);
    console.error(`cleanup: dropped database ${name}`);
  } finally {
    await admin.end();
  }
});
harness.onCleanup('receivers', () => Promise.all(receivers.map((receiver) => receiver.close())));
harness.onCleanup('redis keys', async () => redisPrefix && deleteRedisKeys(REDIS_URL, redisPrefix));

// ---------------------------------------------------------------------------------------------- token helpers

interface TokenAnswer {
  status: number;
  headers: Headers | undefined;
  body: any;
}

async function postToken(params: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(`${idp!.url}/application/o/token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* reported by the shape check */
  }
  return { status: response.status, headers: response.headers, body };
}

/** What is wrong with a token response (RFC 6749 §5.1, OIDC Core §3.1.3.3); empty when it is a good one. */
function tokenResponseProblems(answer: TokenAnswer, previousRefreshToken?: string): string[] {
  const problems: string[] = [];
  const body = answer.body;
  if (answer.status !== 200) return [`status ${answer.status}: ${JSON.stringify(body).slice(0, 200)}`];
  if (typeof body !== 'object' || body === null) return ['body is not JSON'];
  if (answer.headers) {
    if (!/application\/json/.test(answer.headers.get('content-type') ?? ''))
      problems.push(`content-type ${answer.headers.get('content-type')}`);
    if (!/no-store/.test(answer.headers.get('cache-control') ?? '')) problems.push(`cache-control ${answer.headers.get('cache-control')}`);
  }
  if (typeof body.access_token !== 'string' || !body.access_token) problems.push('no access_token');
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') problems.push(`token_type ${body.token_type}`);
  if (!Number.isInteger(body.expires_in) || body.expires_in <= 0) problems.push(`expires_in ${body.expires_in}`);
  if (typeof body.id_token !== 'string' || body.id_token.split('.').length !== 3) problems.push('no id_token');
  if (typeof body.refresh_token !== 'string' || !body.refresh_token) problems.push('no refresh_token');
  else if (body.refresh_token === previousRefreshToken) problems.push('refresh token was not rotated');
  if (typeof body.scope !== 'string' || !body.scope.split(' ').includes('openid')) problems.push(`scope ${body.scope}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------- the run

interface Figures {
  signIns?: { count: number; ok: number; seconds: number; perSecond: number; p50: number; p95: number };
  tokens?: { count: number; ok: number; seconds: number; perSecond: number; p50: number; p95: number; p99: number };
  events?: {
    count: number;
    produceSeconds: number;
    producePerSecond: number;
    endToEndSeconds: number;
    perSecond: number;
    relaySeconds: number;
    relayPerSecond: number;
    maxPending: number;
    deliveries: number;
    attemptsTotal: number;
    delivered: number;
    failed: number;
    flakyAttempts: Record<number, number>;
    healthyAttempts: Record<number, number>;
    failureAnswers: number;
    okAnswers: number;
  };
}
const figures: Figures = {};

async function main() {
  const machine = await readMachine(process.env.TEST_DATABASE_URL!, REDIS_URL);
  log(`machine: ${machineLine(machine)}; seed ${SEED}`);

  // Receivers: two healthy, two failing half the time (seeded), each recording the answer it gave per event id.
  const random = prng(SEED);
  const answers: Array<Map<string, number[]>> = [];
  const badSignatures: string[] = [];
  const names = ['healthy-1', 'healthy-2', 'flaky-1', 'flaky-2'];
  for (const name of names) {
    const answered = new Map<string, number[]>();
    answers.push(answered);
    const flaky = name.startsWith('flaky');
    const receiver = await startReceiver((request) => {
      const eventId = String(request.headers['x-service-event-id'] ?? '');
      const expected = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(request.raw).digest('hex')}`;
      if (request.headers['x-service-signature'] !== expected && badSignatures.length < 10) badSignatures.push(`${name} ${eventId}`);
      const status = flaky && random() < FAILURE_RATE ? 500 : 200;
      const list = answered.get(eventId) ?? [];
      list.push(status);
      answered.set(eventId, list);
      request.raw = Buffer.alloc(0); // keep memory flat: the body was checked above
      return status;
    });
    receivers.push(receiver);
  }

  const { applications: _, ...delivery } = webhookSettings([]);
  redisPrefix = delivery.redis.prefix;
  idp = await startOidcServer(
    'postgres',
    'http://127.0.0.1:1/callback',
    [
      { slug: 'web' },
      ...names.map((name, i) => ({ slug: `hook-${name}`, webhook: { url: `${receivers[i]!.url}/hook`, secret: WEBHOOK_SECRET } })),
    ],
    {
      // A lock as long as the stall check (stalled_interval_ms): a second is too short for a busy runner's event loop.
      overrides: { ...delivery, worker: { ...delivery.worker, concurrency: WORKER_CONCURRENCY, stalled_interval_ms: 5000 } },
      workers: true,
      redisServices: true,
      logger,
    },
  );
  const db = idp.db.database.db;
  const app = idp.apps.web!;
  log(
    `service on ${idp.url} (PostgreSQL database ${new URL(idp.db.url!).pathname.slice(1)}, Redis prefix ${redisPrefix}), bcrypt cost ${idp.settings.passwords.bcrypt_cost}, worker concurrency ${idp.settings.worker.concurrency}`,
  );
  const discovery = (await (await fetch(`${app.issuer}.well-known/openid-configuration`)).json()) as { jwks_uri: string; issuer: string };
  // Fetched before the load, with room to answer: the first verification would otherwise fetch the keys while 200
  // sign-ins hold the CPU, and jose's 5 s default failed every waiting verification on a slow machine.
  const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri), { timeoutDuration: 30_000 });
  await jwks.reload();
  const verifyIdToken = async (token: string, sub: string, nonce?: string) => {
    const { payload } = await jwtVerify(token, jwks, { issuer: app.issuer, audience: app.client_id, algorithms: ['RS256'] });
    if (payload.sub !== sub) throw new Error(`id_token sub ${payload.sub}, expected ${sub}`);
    if (nonce !== undefined && payload.nonce !== nonce) throw new Error('id_token nonce does not match');
  };

  // ------------------------------------------------------------------------------------------ a. sign-ins
  console.log(`\na. ${SIGN_INS} concurrent sign-ins through the pages, each a different user`);
  const users = (await runBounded(SIGN_INS, 10, (i) => idp!.user({ email: `load-${i}@example.com`, name: `Load User ${i}` }))).map(
    (result) => {
      if (result.status === 'rejected') throw result.reason;
      return result.value;
    },
  );
  const outboxBefore = Number(
    (
      await db
        .selectFrom('outbox')
        .select(sql<string>`count(*)`.as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  const signInTimes: number[] = [];
  const signInStart = performance.now();
  const signIns = await Promise.allSettled(
    users.map(async (user) => {
      const began = performance.now();
      const http = new CookieClient();
      const signIn = await httpSignIn(http, app, idp!.url, user.email, PASSWORD);
      const error = signIn.callback.searchParams.get('error');
      if (error) throw new Error(`callback with error=${error}: ${signIn.callback.searchParams.get('error_description')}`);
      if (signIn.callback.searchParams.get('state') !== signIn.request.state) throw new Error('callback state does not match');
      if (!signIn.callback.searchParams.get('code')) throw new Error('callback without code');
      const tokens = await redeemCode(app, idp!.url, signIn);
      const problems = tokenResponseProblems({ status: tokens.status, headers: undefined, body: tokens.body });
      if (problems.length) throw new Error(`code exchange: ${problems.join('; ')}`);
      await verifyIdToken(tokens.body.id_token, user.uuid, signIn.request.nonce);
      signInTimes.push(performance.now() - began);
      return { user, refreshToken: tokens.body.refresh_token as string };
    }),
  );
  const signInSeconds = (performance.now() - signInStart) / 1000;
  const signedIn = signIns.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const signInErrors = signIns.flatMap((result) => (result.status === 'rejected' ? [describeError(result.reason)] : []));
  figures.signIns = {
    count: SIGN_INS,
    ok: signedIn.length,
    seconds: round(signInSeconds, 2),
    perSecond: round(SIGN_INS / signInSeconds),
    p50: Math.round(percentile(signInTimes, 50)),
    p95: Math.round(percentile(signInTimes, 95)),
  };
  log(
    `${signedIn.length}/${SIGN_INS} signed in and got tokens in ${signInSeconds.toFixed(2)} s: ${figures.signIns.perSecond} sign-ins/s, p50 ${figures.signIns.p50} ms, p95 ${figures.signIns.p95} ms (each: authorize → e-mail → password → callback → token)`,
  );
  expectThat(
    'every sign-in reached the callback with a code and exchanged it for valid tokens',
    signInErrors.length === 0,
    signInErrors.length ? `${signInErrors.length} failed, e.g. ${sample(signInErrors)}` : `${signedIn.length} of ${SIGN_INS}`,
  );
  const lastLogins = Number(
    (
      await db
        .selectFrom('users')
        .select(sql<string>`count(*)`.as('n'))
        .where('email', 'like', 'load-%')
        .where('last_login', 'is not', null)
        .executeTakeFirstOrThrow()
    ).n,
  );
  expectThat('every user who signed in has last_login recorded', lastLogins === signedIn.length, `${lastLogins} of ${signedIn.length}`);

  // ------------------------------------------------------------------------------------------ b. token requests
  console.log(`\nb. ${TOKEN_REQUESTS} refresh-token grants, ${TOKEN_CONCURRENCY} at a time, rotating each user's refresh token`);
  const chains = signedIn.map((entry) => ({
    user: entry.user,
    refreshToken: entry.refreshToken,
    tail: Promise.resolve() as Promise<unknown>,
  }));
  const tokenTimes: number[] = [];
  const tokenErrors: string[] = [];
  let tokenOk = 0;
  const tokenStart = performance.now();
  if (chains.length) {
    await runBounded(TOKEN_REQUESTS, TOKEN_CONCURRENCY, async (i) => {
      // Round-robin over the users; a user's grants run one after another, each with the token the last one returned.
      const chain = chains[i % chains.length]!;
      const turn = chain.tail.then(async () => {
        const began = performance.now();
        try {
          const answer = await postToken({
            grant_type: 'refresh_token',
            refresh_token: chain.refreshToken,
            client_id: app.client_id,
            client_secret: app.client_secret,
          });
          tokenTimes.push(performance.now() - began);
          const problems = tokenResponseProblems(answer, chain.refreshToken);
          if (!problems.length)
            await verifyIdToken(answer.body.id_token, chain.user.uuid).catch((error: Error) => problems.push(error.message));
          if (problems.length) {
            tokenErrors.push(`#${i} ${chain.user.email}: ${problems.join('; ')}`);
            return;
          }
          chain.refreshToken = answer.body.refresh_token;
          tokenOk++;
        } catch (error) {
          tokenErrors.push(`#${i} ${chain.user.email}: ${describeError(error)}`);
        }
      });
      chain.tail = turn;
      await turn;
    });
  }
  const tokenSeconds = (performance.now() - tokenStart) / 1000;
  figures.tokens = {
    count: TOKEN_REQUESTS,
    ok: tokenOk,
    seconds: round(tokenSeconds, 2),
    perSecond: round(TOKEN_REQUESTS / tokenSeconds),
    p50: Math.round(percentile(tokenTimes, 50)),
    p95: Math.round(percentile(tokenTimes, 95)),
    p99: Math.round(percentile(tokenTimes, 99)),
  };
  log(
    `${tokenOk}/${TOKEN_REQUESTS} answered 200 in ${tokenSeconds.toFixed(2)} s: ${figures.tokens.perSecond} token requests/s, p50 ${figures.tokens.p50} ms, p95 ${figures.tokens.p95} ms, p99 ${figures.tokens.p99} ms`,
  );
  expectThat(
    'every refresh grant answered 200 with a spec token response (rotated refresh token, valid id_token)',
    tokenOk === TOKEN_REQUESTS && tokenErrors.length === 0,
    tokenErrors.length ? `${tokenErrors.length} errors, e.g. ${sample(tokenErrors)}` : `${tokenOk} of ${TOKEN_REQUESTS}`,
  );
  const outboxAfterSignIns = Number(
    (
      await db
        .selectFrom('outbox')
        .select(sql<string>`count(*)`.as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  expectThat(
    'sign-ins and token requests wrote no webhook events',
    outboxAfterSignIns === outboxBefore,
    `${outboxAfterSignIns - outboxBefore} outbox rows`,
  );

  // ------------------------------------------------------------------------------------------ c. webhook events
  console.log(
    `\nc. ${EVENTS} webhook events to 4 receivers (2 healthy, 2 answering 500 at random ${FAILURE_RATE * 100}% of the time), ${MAX_ATTEMPTS} attempts at most`,
  );
  const eventUsers = users.map((user) => user.pk);
  const eventStart = performance.now();
  const updates = await runBounded(EVENTS, EVENT_CONCURRENCY, (i) =>
    updateUser(idp!.store, eventUsers[i % eventUsers.length]!, {
      name: `Load User ${i % eventUsers.length} v${Math.floor(i / eventUsers.length) + 1}`,
    }),
  );
  const produceSeconds = (performance.now() - eventStart) / 1000;
  const updateErrors = updates.flatMap((result) => (result.status === 'rejected' ? [describeError(result.reason)] : []));
  log(
    `${EVENTS - updateErrors.length} updates committed in ${produceSeconds.toFixed(2)} s (${round(EVENTS / produceSeconds)} events/s into the outbox)`,
  );
  expectThat(
    'every updateUser committed',
    updateErrors.length === 0,
    updateErrors.length ? `${updateErrors.length} failed, e.g. ${sample(updateErrors)}` : '',
  );

  const settleDeadline = Date.now() + SETTLE_MS;
  let lastReport = 0;
  let settled = false;
  let drainedSeconds: number | undefined;
  let maxPending = 0;
  const count = async (query: Promise<{ n: string }>) => Number((await query).n);
  while (Date.now() < settleDeadline) {
    const undispatched = await count(
      db
        .selectFrom('outbox')
        .select(sql<string>`count(*)`.as('n'))
        .where('dispatched_at', 'is', null)
        .executeTakeFirstOrThrow(),
    );
    const statuses = await db
      .selectFrom('deliveries')
      .select(['status', sql<string>`count(*)`.as('n')])
      .groupBy('status')
      .execute();
    const byStatus = Object.fromEntries(statuses.map((row) => [row.status, Number(row.n)]));
    if (undispatched === 0) drainedSeconds ??= (performance.now() - eventStart) / 1000;
    maxPending = Math.max(maxPending, byStatus.pending ?? 0);
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      log(`outbox undispatched ${undispatched}; deliveries ${JSON.stringify(byStatus)}`);
    }
    if (undispatched === 0 && !byStatus.pending) {
      settled = true;
      break;
    }
    await sleep(250);
  }
  const endToEndSeconds = (performance.now() - eventStart) / 1000;
  expectThat(
    `every event dispatched and every delivery settled within ${SETTLE_MS / 1000} s`,
    settled,
    settled ? `${endToEndSeconds.toFixed(1)} s end to end` : 'deadline passed (see the counts above)',
  );
  // A delivery that is settled must not be attempted again: watch the receivers for a moment.
  const requestsAtSettle = receivers.reduce((sum, receiver) => sum + receiver.received.length, 0);
  await sleep(1500);
  const lateRequests = receivers.reduce((sum, receiver) => sum + receiver.received.length, 0) - requestsAtSettle;

  // Verification from the tables.
  const outbox = await db.selectFrom('outbox').select(['id', 'type', 'dispatched_at']).execute();
  const deliveries = await db
    .selectFrom('deliveries')
    .select(['id', 'event_id', 'app', 'kind', 'status', 'attempts', 'last_status_code'])
    .execute();
  const attemptRows = await db
    .selectFrom('delivery_attempts')
    .select(['delivery_id', sql<string>`count(*)`.as('n'), sql<number>`max(attempt)`.as('last')])
    .groupBy('delivery_id')
    .execute();
  const attemptLog = new Map(attemptRows.map((row) => [row.delivery_id, { n: Number(row.n), last: Number(row.last) }]));

  const events = outbox.filter((row) => row.type === 'user_updated');
  expectThat(
    `the outbox holds exactly the ${EVENTS} user_updated events`,
    outbox.length === outboxBefore + EVENTS && events.length === EVENTS,
    `${outbox.length} rows, ${events.length} user_updated`,
  );
  const undispatched = outbox.filter((row) => row.dispatched_at === null);
  expectThat(
    'every outbox row was dispatched',
    undispatched.length === 0,
    undispatched.length ? `${undispatched.length} not dispatched, e.g. ${sample(undispatched.map((row) => row.id))}` : '',
  );

  const hookApps = names.map((name) => `hook-${name}`);
  const perEvent = new Map<string, Map<string, number>>();
  for (const row of deliveries) {
    const apps = perEvent.get(row.event_id) ?? new Map<string, number>();
    apps.set(`${row.kind}:${row.app}`, (apps.get(`${row.kind}:${row.app}`) ?? 0) + 1);
    perEvent.set(row.event_id, apps);
  }
  const wrongRecipients = events.filter((event) => {
    const apps = perEvent.get(event.id);
    return !apps || apps.size !== hookApps.length || hookApps.some((slug) => apps.get(`webhook:${slug}`) !== 1);
  });
  expectThat(
    'each event has exactly one webhook delivery row per recipient application (4), and no other',
    wrongRecipients.length === 0 && deliveries.length === EVENTS * hookApps.length,
    `${deliveries.length} delivery rows for ${events.length} events${wrongRecipients.length ? `; ${wrongRecipients.length} events wrong, e.g. ${sample(wrongRecipients.map((event) => [event.id, [...(perEvent.get(event.id) ?? [])]]))}` : ''}`,
  );
  const pending = deliveries.filter((row) => row.status === 'pending');
  expectThat(
    'no delivery is still pending',
    pending.length === 0,
    pending.length ? `${pending.length} pending, e.g. ${sample(pending)}` : '',
  );

  const tooMany = deliveries.filter((row) => row.attempts > MAX_ATTEMPTS);
  expectThat(
    `no delivery made more than ${MAX_ATTEMPTS} attempts`,
    tooMany.length === 0,
    tooMany.length ? `${tooMany.length}, e.g. ${sample(tooMany)}` : '',
  );
  const failed = deliveries.filter((row) => row.status === 'failed');
  const failedWrong = failed.filter(
    (row) => row.attempts !== MAX_ATTEMPTS || row.last_status_code !== 500 || !row.app.startsWith('hook-flaky'),
  );
  expectThat(
    `every failed delivery is a flaky receiver's, made exactly ${MAX_ATTEMPTS} attempts, last answer 500`,
    failedWrong.length === 0,
    `${failed.length} failed${failedWrong.length ? `; ${failedWrong.length} wrong, e.g. ${sample(failedWrong)}` : ''}`,
  );
  const logMismatch = deliveries.filter((row) => {
    const entry = attemptLog.get(row.id);
    return (entry?.n ?? 0) !== row.attempts || (row.attempts > 0 && entry?.last !== row.attempts);
  });
  expectThat(
    'the attempt log has one row per counted attempt, numbered 1…n',
    logMismatch.length === 0,
    logMismatch.length
      ? `${logMismatch.length} deliveries differ, e.g. ${sample(logMismatch.map((row) => ({ ...row, log: attemptLog.get(row.id) })))}`
      : '',
  );

  // Receiver side.
  const eventIds = new Set(events.map((event) => event.id));
  for (const [i, name] of names.entries()) {
    if (!name.startsWith('healthy')) continue;
    const missing = [...eventIds].filter((id) => !answers[i]!.has(id));
    expectThat(
      `${name} received every event`,
      missing.length === 0,
      missing.length ? `${missing.length} missing, e.g. ${sample(missing)}` : `${answers[i]!.size} distinct event ids`,
    );
  }
  const healthyNotOnce = deliveries.filter(
    (row) => row.app.startsWith('hook-healthy') && (row.status !== 'delivered' || row.attempts !== 1),
  );
  expectThat(
    'every delivery to a healthy receiver was delivered at the first attempt',
    healthyNotOnce.length === 0,
    healthyNotOnce.length ? `${healthyNotOnce.length}, e.g. ${sample(healthyNotOnce)}` : '',
  );
  const deliveredWithout2xx: unknown[] = [];
  const twoXxButFailed: unknown[] = [];
  const countMismatch: unknown[] = [];
  const receiverTooMany: unknown[] = [];
  for (const row of deliveries) {
    const index = hookApps.indexOf(row.app);
    if (index < 0) continue;
    const seen = answers[index]!.get(row.event_id) ?? [];
    const got2xx = seen.some((status) => status >= 200 && status < 300);
    if (row.status === 'delivered' && !got2xx) deliveredWithout2xx.push({ ...row, seen });
    if (row.status !== 'delivered' && got2xx) twoXxButFailed.push({ ...row, seen });
    if (seen.length !== row.attempts) countMismatch.push({ ...row, seen });
    if (seen.length > MAX_ATTEMPTS) receiverTooMany.push({ ...row, seen });
  }
  expectThat(
    "each delivered delivery's event arrived at its receiver and was answered 2xx",
    deliveredWithout2xx.length === 0,
    deliveredWithout2xx.length ? `${deliveredWithout2xx.length}, e.g. ${sample(deliveredWithout2xx)}` : '',
  );
  expectThat(
    'no receiver answered 2xx to a delivery recorded as not delivered',
    twoXxButFailed.length === 0,
    twoXxButFailed.length ? `${twoXxButFailed.length}, e.g. ${sample(twoXxButFailed)}` : '',
  );
  expectThat(
    `no receiver got one event more than ${MAX_ATTEMPTS} times`,
    receiverTooMany.length === 0,
    receiverTooMany.length ? `${receiverTooMany.length}, e.g. ${sample(receiverTooMany)}` : '',
  );
  expectThat(
    'the requests each receiver got per event equal the attempts recorded',
    countMismatch.length === 0,
    countMismatch.length ? `${countMismatch.length}, e.g. ${sample(countMismatch)}` : '',
  );
  const strangers = answers.flatMap((answered, i) =>
    [...answered.keys()].filter((id) => !eventIds.has(id)).map((id) => `${names[i]} ${id}`),
  );
  expectThat('receivers got no request for an unknown event id', strangers.length === 0, strangers.length ? sample(strangers) : '');
  expectThat('every request carried a valid signature', badSignatures.length === 0, badSignatures.length ? sample(badSignatures) : '');
  expectThat('no request arrived after every delivery had settled', lateRequests === 0, `${lateRequests} late requests`);

  // The service's own log.
  const failureAnswers = answers.reduce(
    (sum, answered) => sum + [...answered.values()].flat().filter((status) => status === 500).length,
    0,
  );
  const okAnswers = answers.reduce((sum, answered) => sum + [...answered.values()].flat().filter((status) => status === 200).length, 0);
  expectThat(
    "the service logged no error, no 5xx answer and no warning other than the receivers' 500s",
    serviceLog.unexpectedCount === 0,
    serviceLog.unexpectedCount
      ? `${serviceLog.unexpectedCount} lines, e.g.\n      ${serviceLog.unexpected.join('\n      ')}`
      : `${serviceLog.lines} lines read`,
  );
  expectThat(
    'each receiver 500 was logged as one failed attempt',
    serviceLog.receiver500Warnings === failureAnswers,
    `${serviceLog.receiver500Warnings} warnings, ${failureAnswers} answers 500`,
  );

  const distribution = (rows: typeof deliveries) => {
    const out: Record<number, number> = {};
    for (const row of rows) out[row.attempts] = (out[row.attempts] ?? 0) + 1;
    return out;
  };
  figures.events = {
    count: EVENTS,
    produceSeconds: round(produceSeconds, 2),
    producePerSecond: round(EVENTS / produceSeconds),
    endToEndSeconds: round(endToEndSeconds, 1),
    perSecond: round(EVENTS / endToEndSeconds),
    relaySeconds: round(drainedSeconds ?? endToEndSeconds, 1),
    relayPerSecond: round(EVENTS / (drainedSeconds ?? endToEndSeconds)),
    maxPending,
    deliveries: deliveries.length,
    attemptsTotal: deliveries.reduce((sum, row) => sum + row.attempts, 0),
    delivered: deliveries.filter((row) => row.status === 'delivered').length,
    failed: failed.length,
    flakyAttempts: distribution(deliveries.filter((row) => row.app.startsWith('hook-flaky'))),
    healthyAttempts: distribution(deliveries.filter((row) => row.app.startsWith('hook-healthy'))),
    failureAnswers,
    okAnswers,
  };
  log(
    `events: ${EVENTS} in ${figures.events.endToEndSeconds} s end to end (${figures.events.perSecond} events/s; ${round(deliveries.length / endToEndSeconds)} deliveries/s, ${round(figures.events.attemptsTotal / endToEndSeconds)} attempts/s)`,
  );
  log(
    `outbox drained by the relay after ${figures.events.relaySeconds} s (${figures.events.relayPerSecond} events/s); at most ${maxPending} deliveries pending at once`,
  );
  log(
    `deliveries ${deliveries.length}: ${figures.events.delivered} delivered, ${failed.length} failed after ${MAX_ATTEMPTS} attempts; attempts ${figures.events.attemptsTotal} (${okAnswers} answered 200, ${failureAnswers} answered 500)`,
  );
  log(
    `attempts per delivery — flaky receivers ${JSON.stringify(figures.events.flakyAttempts)}, healthy receivers ${JSON.stringify(figures.events.healthyAttempts)}`,
  );

  return machine;
}

// ---------------------------------------------------------------------------------------------- report

function report(machine: Machine, failures: Outcome[], crash?: string): string {
  const s = figures.signIns;
  const t = figures.tokens;
  const e = figures.events;
  const lines = [
    `Correctness under load against the real service: PostgreSQL, Redis, the HTTP server with the sign-in pages, the outbox`,
    `relay and the delivery workers in one process, real webhook receivers on 127.0.0.1. Only correctness is asserted;`,
    `the timings below are what one run measured (\`test/load/service.load.ts\`; rerun with \`npm run test:load\`).`,
    '',
    ...machineParagraph(machine, ROOT),
    `Settings: config/test.yaml (bcrypt cost 4), database pool 25, webhook backoff 0.05 s × 2ⁿ, 3 retries,`,
    `worker concurrency ${WORKER_CONCURRENCY}.`,
    '',
    '| scenario | volume | result | throughput | latency |',
    '|---|---|---|---|---|',
  ];
  if (s)
    lines.push(
      `| a. sign-ins (authorize → e-mail page → password page → callback → code exchange) | ${s.count} concurrent, one user each | ${s.ok}/${s.count} got tokens | ${s.perSecond} sign-ins/s (${s.seconds} s) | whole sign-in p50 ${s.p50} ms, p95 ${s.p95} ms |`,
    );
  if (t)
    lines.push(
      `| b. refresh-token grants, rotated per user | ${t.count}, ${TOKEN_CONCURRENCY} concurrent | ${t.ok}/${t.count} answered 200 | ${t.perSecond} token requests/s (${t.seconds} s) | p50 ${t.p50} ms, p95 ${t.p95} ms, p99 ${t.p99} ms |`,
    );
  if (e) {
    lines.push(
      `| c. user_updated webhooks, 4 receivers (2 answer 500 at random 50%) | ${e.count} events, ${e.deliveries} deliveries | ${e.delivered} delivered, ${e.failed} failed after 4 attempts, 0 lost | ${e.perSecond} events/s end to end (${e.endToEndSeconds} s); ${e.producePerSecond} events/s into the outbox | — |`,
    );
    lines.push('');
    lines.push(
      `The outbox relay moved the ${e.count} events to the queue in ${e.relaySeconds} s (${e.relayPerSecond} events/s, one delivery row and`,
    );
    lines.push(
      `job per recipient); at most ${e.maxPending} deliveries were pending at any sampled moment${e.maxPending < 1000 && e.relaySeconds >= 0.8 * e.endToEndSeconds ? ': the workers kept up, the relay set the end-to-end rate' : ''}.`,
    );
    lines.push('');
    lines.push(
      `Webhook attempts: ${e.attemptsTotal} (${e.okAnswers} answered 200, ${e.failureAnswers} answered 500). Attempts per delivery:`,
    );
    lines.push('');
    lines.push('| receivers | 1 | 2 | 3 | 4 |');
    lines.push('|---|---|---|---|---|');
    lines.push(`| healthy (2) | ${[1, 2, 3, 4].map((n) => e.healthyAttempts[n] ?? 0).join(' | ')} |`);
    lines.push(`| failing 50% (2) | ${[1, 2, 3, 4].map((n) => e.flakyAttempts[n] ?? 0).join(' | ')} |`);
  }
  lines.push('');
  lines.push(
    failures.length || crash
      ? `Outcome: FAILED — ${crash ?? failures.map((failure) => failure.name).join('; ')}.`
      : `Outcome: every expectation held (${outcomes.length} checks: no sign-in or token error, every event delivered to the healthy receivers, none lost, every delivery ≤ 4 attempts, no 5xx or unexpected warning logged).`,
  );
  return lines.join('\n');
}

let machine: Machine | undefined;
let crash: string | undefined;
try {
  machine = await main();
} catch (error) {
  crash = `the run stopped early: ${(error as Error).stack ?? error}`;
  console.error(`\n${crash}`);
}
await harness.finish(crash, '## Load (npm run test:load)', (failures) => machine && report(machine, failures, crash?.split('\n')[0]));
