/**
 * `npm run test:scale`: scale-out under load, with real parts only. Three `idp serve` replicas and two `idp worker`s,
 * started as an operator starts them (`node --import tsx src/main.ts serve|worker`, the same configuration through
 * environment variables and NODE_CONFIG) on one fresh PostgreSQL database (TEST_DATABASE_URL's server) and one Redis
 * (REDIS_URL, a prefix of the run's own); a webhook receiver on 127.0.0.1 that answers slowly, so deliveries are in
 * flight when a worker dies.
 *
 * Clients (test/load/scale-clients.ts) spread every request over the replicas in turn and try a failed one once more
 * at the next replica (test/load/balancer.ts): sign-ins through the pages with the code exchange, refresh grants
 * carrying the rotated token, UserInfo, renames through the provisioning API (each a user_updated webhook), and
 * checks aimed at named replicas — revocation (RFC 7009) and deactivation at one replica refused at the others at
 * once, a rotated refresh token replayed at another replica refused with its grant ended. Mid-run one replica and one
 * worker are killed with SIGKILL; the load goes on.
 *
 * Asserted: every acknowledged write is in the database; every event is delivered (at least once, the same event id
 * on a redelivery: duplicates are counted); no check failed; a request refused by the dead replica succeeded at the
 * next; nothing failed and nothing answered 5xx outside the kill window; no process logged an error. Timings are
 * printed and written to docs/performance.md. A hard overall deadline stops every process (by PID) and fails the run.
 * Tunables (defaults in brackets): SCALE_LOAD_SECONDS [40], SCALE_KILL_AT_SECONDS [15], SCALE_KILL_WINDOW_SECONDS [10],
 * SCALE_CLIENTS [8], SCALE_SETTLE_SECONDS [120], SCALE_DEADLINE_SECONDS [480], LOAD_SEED [random], LOAD_WRITE_DOCS
 * [1; 0 = print only].
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Receiver } from '../helpers/receiver.js';
import type { IdpProcess, LogLine } from './cluster.js';
import type { Clients, Person } from './scale-clients.js';
import type { Receipts } from './scale-verify.js';
import type { Machine } from './figures.js';

if (process.env.NODE_ENV === undefined) process.env.NODE_ENV = 'test';
if (process.env.NODE_ENV !== 'test') {
  console.error(
    `scale-out test: NODE_ENV must be "test" (config/test.yaml: bcrypt cost 4, high per-IP limits), not "${process.env.NODE_ENV}"`,
  );
  process.exit(2);
}
// Read when the helpers load (test/helpers/database.ts): set the documented default first.
process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test';

const { createPostgresDatabase } = await import('../helpers/database.js');
const { startReceiver } = await import('../helpers/receiver.js');
const { REDIS_URL, uniquePrefix } = await import('../helpers/redis.js');
const { PASSWORD } = await import('../helpers/oidc-server.js');
const { ROOT } = await import('../helpers/paths.js');
const { machineLine, prng, readMachine, round, runBounded } = await import('./figures.js');
const { deleteRedisKeys, sleep, startHarness } = await import('./harness.js');
const { startIdpProcess, stopAll, waitUntilReady } = await import('./cluster.js');
const { Balancer } = await import('./balancer.js');
const { api, runLane } = await import('./scale-clients.js');
const { settleDeliveries, verify } = await import('./scale-verify.js');
const { scaleReport } = await import('./scale-report.js');

const REPLICAS = 3;
const WORKERS = 2;
const CLIENTS = Number(process.env.SCALE_CLIENTS ?? 8);
const PEOPLE_PER_CLIENT = 4;
const LOAD_MS = Number(process.env.SCALE_LOAD_SECONDS ?? 40) * 1000;
const KILL_AT_MS = Number(process.env.SCALE_KILL_AT_SECONDS ?? 15) * 1000;
const KILL_WINDOW_MS = Number(process.env.SCALE_KILL_WINDOW_SECONDS ?? 10) * 1000;
// Bounds, not targets: a busy 2-core machine starts five processes slowly.
const SETTLE_MS = Number(process.env.SCALE_SETTLE_SECONDS ?? 120) * 1000;
const DEADLINE_MS = Number(process.env.SCALE_DEADLINE_SECONDS ?? 480) * 1000;
const START_MS = 180_000;
const SEED = Number(process.env.LOAD_SEED ?? randomInt(1, 2 ** 31));
const THINK_MS = 60;
const CHECK_EVERY = 10;
/** The receiver answers after 0.5–1 s (seeded): each worker has deliveries in flight when one is killed. */
const RECEIVER_DELAY_MS = [500, 1000] as const;
const WEBHOOK_SECRET = 'whsec-scale-0123456789abcdef';
const PUBLIC_URL = 'http://idp.scale-out.test'; // issuer.base_url of every replica; never resolved: the balancer sends to the replicas
/** Pools small enough for a shared PostgreSQL: 3 × 8 + 2 × 4 connections, and one listening connection per replica. */
const POOL = { serve: 8, worker: 4 };
const SETTINGS = {
  webhooks: { allow_insecure_loopback: true, backoff_seconds: 1 },
  worker: { embedded: false, concurrency: 25, stalled_interval_ms: 5000 },
};

const harness = startHarness('scale-out test', DEADLINE_MS);
const { log } = harness;

// ---------------------------------------------------------------------------------------------- lifecycle

const processes: IdpProcess[] = [];
let database: { url: string; drop(): Promise<void> } | undefined;
let receiver: Receiver | undefined;
const redisPrefix = uniquePrefix();
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'idp-scale-'));
harness.onCleanup('idp processes', () => stopAll(processes));
harness.onCleanup('test database', async () => database?.drop());
harness.onCleanup('receiver', async () => receiver?.close());
harness.onCleanup('redis keys', () => deleteRedisKeys(REDIS_URL, redisPrefix));
harness.onCleanup('data directory', async () => rmSync(dataDir, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------- the run

/** The replicas and the workers, started together as a deployment starts them; resolves once every replica is ready. */
async function startCluster(env: (pool: number) => Record<string, string>, onLog: (line: LogLine) => void) {
  log(`starting ${REPLICAS} × idp serve and ${WORKERS} × idp worker, Redis prefix ${redisPrefix}`);
  const started = await Promise.allSettled([
    ...Array.from({ length: REPLICAS }, (_, i) =>
      startIdpProcess(`serve ${i + 1}`, ['serve', '--port', '0'], env(POOL.serve), /listening on (http:\/\/\S+)/, onLog, START_MS),
    ),
    ...Array.from({ length: WORKERS }, (_, i) =>
      startIdpProcess(`worker ${i + 1}`, ['worker'], env(POOL.worker), /worker running/, onLog, START_MS),
    ),
  ]);
  for (const result of started) if (result.status === 'fulfilled') processes.push(result.value);
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  const replicas = processes.slice(0, REPLICAS);
  await Promise.all(replicas.map((replica) => waitUntilReady(`${replica.url}/-/health/ready/`, START_MS)));
  return { replicas, workers: processes.slice(REPLICAS) };
}

/** The people the clients sign in and rename, made through the API (spread over the replicas like everything else). */
async function makePeople(clients: Clients): Promise<Person[]> {
  const made = await runBounded(CLIENTS * PEOPLE_PER_CLIENT, 4, async (i): Promise<Person> => {
    const email = `scale-${i}@example.com`;
    const name = `Scale person ${i}`;
    const created = await api(clients, 'POST', '/users/', { username: email, email, name });
    const body = await created.json();
    if (created.status !== 201) throw new Error(`creating ${email}: ${created.status} ${JSON.stringify(body)}`);
    const password = await api(clients, 'POST', `/users/${body.pk}/set_password/`, { password: PASSWORD });
    if (password.status !== 204) throw new Error(`password of ${email}: ${password.status} ${await password.text()}`);
    const zero = { user_updated: 0, user_deactivated: 0 };
    return { pk: body.pk, uuid: body.uuid, email, expected: { name, is_active: true }, acked: { ...zero }, sent: { ...zero } };
  });
  return made.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });
}

async function main() {
  const machine: Machine = await readMachine(process.env.TEST_DATABASE_URL!, REDIS_URL);
  log(`machine: ${machineLine(machine)}; seed ${SEED}`);
  const t0 = Date.now();
  const now = () => Date.now() - t0;
  const random = prng(SEED);

  const receipts: Receipts = { at: new Map(), types: new Map(), badSignatures: [] };
  const delays = prng(SEED + 1);
  receiver = await startReceiver(async (request) => {
    const id = String(request.headers['x-service-event-id'] ?? '');
    const expected = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(request.raw).digest('hex')}`;
    if (request.headers['x-service-signature'] !== expected && receipts.badSignatures.length < 10) receipts.badSignatures.push(id);
    receipts.at.set(id, [...(receipts.at.get(id) ?? []), now()]);
    receipts.types.set(id, String(JSON.parse(request.raw.toString('utf8')).event_type));
    request.raw = Buffer.alloc(0); // keep memory flat: the body was checked above
    await sleep(RECEIVER_DELAY_MS[0] + delays() * (RECEIVER_DELAY_MS[1] - RECEIVER_DELAY_MS[0]));
    return 200;
  });

  database = await createPostgresDatabase();
  log(`database ${new URL(database.url).pathname.slice(1)}`);
  const apiToken = `idp_${randomBytes(32).toString('base64url')}`;
  const app = {
    slug: 'scale',
    name: 'Scale',
    client_id: 'client-scale',
    client_secret: 'secret-scale-0123456789abcdef',
    redirect_uris: ['http://127.0.0.1:1/callback'],
    webhook: { url: `${receiver.url}/hook`, secret: WEBHOOK_SECRET },
  };
  const secretKey = randomBytes(32).toString('hex');
  const env = (pool: number) => ({
    DATABASE_URL: database!.url,
    REDIS_URL,
    SECRET_KEY: secretKey,
    BASE_URL: PUBLIC_URL,
    IDP_BOOTSTRAP_TOKEN: apiToken,
    IDP_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    NODE_CONFIG: JSON.stringify({ ...SETTINGS, redis: { prefix: redisPrefix }, database: { pool_size: pool }, applications: [app] }),
  });
  const serviceLog: LogLine[] = [];
  const onLog = (line: LogLine) => serviceLog.push({ ...line, at: line.at - t0 });

  const starting = now();
  const { replicas, workers } = await startCluster(env, onLog);
  const readySeconds = round((now() - starting) / 1000, 1);
  log(`ready: ${processes.map((p) => `${p.name} (pid ${p.pid}${p.url ? `, ${p.url}` : ''})`).join(', ')}`);

  const balancer = new Balancer(
    replicas.map((replica) => replica.url!),
    PUBLIC_URL,
    now,
  );
  const clients: Clients = {
    balancer,
    app: { slug: app.slug, client_id: app.client_id, client_secret: app.client_secret, redirect_uri: app.redirect_uris[0]!, issuer: '' },
    publicUrl: PUBLIC_URL,
    apiToken,
    password: PASSWORD,
    now,
    problems: [],
    tally: {},
    revoked: [],
  };

  const people = await makePeople(clients);
  log(`${people.length} people made through the API`);

  // The load, and the kill.
  const loadStart = now();
  const kill = { at: 0, replica: 1, worker: 0 };
  console.log(
    `\n${CLIENTS} clients for ${LOAD_MS / 1000} s over ${REPLICAS} replicas; SIGKILL to serve ${kill.replica + 1} and worker ${kill.worker + 1} at ${KILL_AT_MS / 1000} s`,
  );
  const killing = sleep(KILL_AT_MS).then(async () => {
    kill.at = now();
    await Promise.all([replicas[kill.replica]!.kill('SIGKILL'), workers[kill.worker]!.kill('SIGKILL')]);
    log(
      `killed serve ${kill.replica + 1} (pid ${replicas[kill.replica]!.pid}) and worker ${kill.worker + 1} (pid ${workers[kill.worker]!.pid})`,
    );
  });
  await Promise.all(
    Array.from({ length: CLIENTS }, (_, lane) =>
      runLane(clients, lane, people.slice(lane * PEOPLE_PER_CLIENT, (lane + 1) * PEOPLE_PER_CLIENT), {
        until: loadStart + LOAD_MS,
        thinkMs: THINK_MS,
        checkEvery: CHECK_EVERY,
        random: prng(Math.floor(random() * 2 ** 31)),
        stopped: () => harness.stopping,
      }),
    ),
  );
  await killing;
  const loadEnd = now();
  log(`load done: ${balancer.records.length} requests`);

  const settled = await settleDeliveries(database.url, receipts, SETTLE_MS, log);
  const figures = await verify({
    databaseUrl: database.url,
    t0,
    clients,
    people,
    receipts,
    serviceLog,
    window: { loadStart, loadEnd, killAt: kill.at, killEnd: kill.at + KILL_WINDOW_MS, deadReplica: kill.replica },
    settled,
    expectThat: harness.expectThat,
  });
  return { machine, figures, readySeconds };
}

let result: Awaited<ReturnType<typeof main>> | undefined;
let crash: string | undefined;
try {
  result = await main();
} catch (error) {
  crash = `the run stopped early: ${(error as Error).stack ?? error}`;
  console.error(`\n${crash}`);
}
await harness.finish(
  crash,
  '## Scale-out (npm run test:scale)',
  (failures) =>
    result &&
    scaleReport(ROOT, result.machine, result.figures, {
      failures,
      checks: harness.outcomes.length,
      clients: CLIENTS,
      peoplePerClient: PEOPLE_PER_CLIENT,
      readySeconds: result.readySeconds,
      loadSeconds: LOAD_MS / 1000,
      killAtSeconds: KILL_AT_MS / 1000,
      windowSeconds: KILL_WINDOW_MS / 1000,
      pool: POOL,
      settings: SETTINGS,
      receiverDelayMs: RECEIVER_DELAY_MS,
    }),
);
