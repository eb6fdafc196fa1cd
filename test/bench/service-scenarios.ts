/**
 * What only the service has, measured on its own: full password sign-ins against the raw bcrypt verify rate at
 * the configured cost; user list and search latency at 1,000 and 100,000 users; webhook deliveries per second
 * (outbox → queue → signed HTTP POST to a local receiver); idle memory of `idp serve` and `idp worker` and the
 * start-up time of `idp serve`, both from the compiled build (as the container runs them).
 */
import http from 'node:http';
import { once } from 'node:events';
import { spawn, execSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import bcrypt from 'bcrypt';
import pg from 'pg';
import { SIGN_IN_LOOPS, type BenchFixture } from './fixture.js';
import { call, median, runLoops, type LoopResult } from './loops.js';
import { residentMb, startProcess } from './processes.js';
import { passwordSignIn } from './sign-in-flow.js';
import { createPostgresDatabase } from '../helpers/database.js';
import { benchDatabaseUrl } from './database-url.js';
import { freePort } from '../helpers/ports.js';
import { ROOT } from '../helpers/paths.js';

const ms = (n: number) => n.toFixed(1);
const WEBHOOK_EVENTS = 5000;

/** A directory that looks like one: 60 given names × 120 family names, the address made of both and a number. */
const GIVEN =
  'ada alan anna boris carla chen daniel dara elena emil farah felix grace hana ivan iris jamal jana kai karin leo lina marco maya nadia noah olga omar paula petr quinn rosa rui sara sven tara theo uma uri vera viktor wen xena yara yusuf zoe zora amir bea cyril dina eva ferran gita hugo'.split(
    ' ',
  );
const FAMILY = Array.from(
  { length: 120 },
  (_, i) =>
    `${['lov', 'tur', 'hop', 'ber', 'kar', 'nov', 'sil', 'dub', 'mar', 'ros', 'vand', 'okon'][i % 12]}${['elace', 'ing', 'per', 'nard', 'sson', 'ak', 'va', 'ois', 'tinez', 'si', 'erberg', 'kwo'][Math.floor(i / 12) % 12]}`,
);
const person = (i: number) => ({ given: GIVEN[(i * 7) % GIVEN.length]!, family: FAMILY[(i * 13) % FAMILY.length]! });
const emailOf = (i: number) => `${person(i).given}.${person(i).family}${i}@example.com`;

async function seedUsers(url: string, total: number) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  const { rows } = await client.query<{ n: string }>('select count(*) as n from users');
  const from = Number(rows[0]!.n) + 1;
  for (let start = from; start <= total; start += 5000) {
    const ids = Array.from({ length: Math.min(5000, total - start + 1) }, (_, k) => start + k);
    await client.query(
      `insert into users (username, email, name, attributes)
      select e, e, n, '{}' from unnest($1::text[], $2::text[]) as t (e, n)`,
      [ids.map(emailOf), ids.map((i) => `${person(i).given} ${person(i).family}`.replace(/\b\w/g, (c) => c.toUpperCase()))],
    );
  }
  await client.query('analyze users');
  await client.end();
}

/** What an administrator types: half the time the start of someone's address, half the time a family name. */
function searchTerm(users: number): string {
  const i = 1 + Math.floor(Math.random() * users);
  return Math.random() < 0.5 ? emailOf(i).slice(0, emailOf(i).indexOf('@')) : person(i).family;
}

async function searchLatency(url: string, token: string, users: number, seconds: number) {
  const headers = { Authorization: `Bearer ${token}` };
  const list = await runLoops(8, seconds, async () => {
    const answer = await call(`${url}/api/v3/core/users/?page=${1 + Math.floor(Math.random() * 40)}&page_size=20`, { headers });
    if (answer.status !== 200) throw new Error(`list ${answer.status}`);
  });
  const search = await runLoops(8, seconds, async () => {
    const answer = await call(`${url}/api/v3/core/users/?search=${encodeURIComponent(searchTerm(users))}`, { headers });
    if (answer.status !== 200) throw new Error(`search ${answer.status}`);
  });
  return { list, search };
}

export async function webhookRate(): Promise<{ rate: number; received: number; seconds: number }> {
  let received = 0;
  let first = 0;
  let last = 0;
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      last = performance.now();
      response.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const service = await startProcess('service-process.ts', {
    BENCH_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
  });
  try {
    const client = new pg.Client({ connectionString: service.fixture.extras!.databaseUrl });
    client.on('error', () => {}); // the database is dropped when the service stops
    await client.connect();
    first = performance.now();
    // Committed events, as the API would leave them: the relay, the queue and the workers do the rest.
    await client.query(
      `insert into outbox (id, type, body, user_uuid, user_groups, group_name)
      select gen_random_uuid(), 'user_updated', json_build_object('event_type', 'user_updated', 'data', json_build_object('n', i))::text, null, '{}', null
      from generate_series(1, $1::int) i`,
      [WEBHOOK_EVENTS],
    );
    await client.end();
    const deadline = Date.now() + 300_000;
    while (received < WEBHOOK_EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await service.stop();
    receiver.close();
  }
  const seconds = (last - first) / 1000;
  return { rate: received / seconds, received, seconds };
}

/** `idp serve` and `idp worker` from dist/ on a fresh PostgreSQL database: start-up time, then memory after 5 s idle. */
async function idleProcesses() {
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const database = await createPostgresDatabase();
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: benchDatabaseUrl(database.url),
    SECRET_KEY: 'c'.repeat(64),
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    IDP_DATA_DIR: '/tmp/idp-bench-data',
  };
  const started = performance.now();
  const serve = spawn(process.execPath, ['dist/src/main.js', 'serve'], { cwd: ROOT, env, stdio: 'ignore' });
  let ready = 0;
  while (!ready && performance.now() - started < 60_000) {
    try {
      if ((await call(`http://127.0.0.1:${port}/-/health/ready/`)).status === 200) ready = performance.now();
    } catch {
      /* not listening yet */
    }
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const worker = spawn(process.execPath, ['dist/src/main.js', 'worker'], { cwd: ROOT, env, stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const result = { startupMs: ready - started, serveMb: await residentMb(serve.pid!), workerMb: await residentMb(worker.pid!) };
  for (const child of [serve, worker]) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  await database.drop();
  return result;
}

/**
 * Sign-ins and raw bcrypt verifies, interleaved round by round like the protocol scenarios (the machine's speed
 * drifts within minutes), after a warm-up whose sign-ins compile the pages' code: the median of each rate, and
 * the median of the rounds' ratios.
 */
async function signInsAgainstBcrypt(f: BenchFixture, seconds: number, rounds: number): Promise<string[]> {
  const x = f.extras!;
  const hash = await bcrypt.hash(x.password, x.bcryptCost);
  const ops = [
    (loop: number) => passwordSignIn(f, x.people[loop]!, x.password),
    async () => {
      if (!(await bcrypt.compare(x.password, hash))) throw new Error('bcrypt');
    },
  ];
  await runLoops(SIGN_IN_LOOPS, seconds, ops[0]!);
  const results: LoopResult[][] = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) results[i]!.push(await runLoops(SIGN_IN_LOOPS, seconds * 2, ops[i]!));
    const [signIn, raw] = [results[0]!.at(-1)!.perSecond, results[1]!.at(-1)!.perSecond];
    console.log(`sign-ins round ${round + 1}: ${signIn.toFixed(2)}/s, raw bcrypt ${raw.toFixed(2)}/s (${(signIn / raw).toFixed(2)}×)`);
  }
  const [signIns, raw] = results.map(medianRun) as [LoopResult, LoopResult];
  const ratios = results[0]!.map((r, i) => r.perSecond / results[1]![i]!.perSecond).sort((a, b) => a - b);
  const ratio = median(ratios);
  const errors = results[0]!.reduce((sum, r) => sum + r.errors, 0);
  return [
    `### Password sign-ins (bcrypt cost ${x.bcryptCost}, ${SIGN_IN_LOOPS} loops, ${rounds} rounds of ${seconds * 2} s interleaved, medians; the rounds' ratios: ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    '',
    '| measure | per second | ratio | p50 ms | p95 ms |',
    '|---|---|---|---|---|',
    `| raw bcrypt verify (this machine, same concurrency) | ${raw.perSecond.toFixed(1)} | 1.00× | ${ms(raw.p50)} | ${ms(raw.p95)} |`,
    `| whole sign-in (authorize → sign-in page → e-mail and password → resume → code exchange)${errors ? ` (${errors} errors: ${results[0]!.find((r) => r.firstError)?.firstError})` : ''} | ${signIns.perSecond.toFixed(1)} | ${ratio.toFixed(2)}× | ${ms(signIns.p50)} | ${ms(signIns.p95)} |`,
    '',
  ];
}

/** The run with the median rate (its latencies with it). */
const medianRun = (runs: LoopResult[]) => [...runs].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(runs.length / 2)]!;

export async function serviceOnlySections(seconds: number, rounds: number): Promise<string[]> {
  const lines: string[] = [];
  const service = await startProcess('service-process.ts');
  try {
    const f = service.fixture;
    const x = f.extras!;
    lines.push(...(await signInsAgainstBcrypt(f, seconds, rounds)));
    console.log(lines.slice(-3).join('\n'));

    const table = ['| users | list p50 ms | list p95 ms | search p50 ms | search p95 ms |', '|---|---|---|---|---|'];
    for (const users of [1000, 100_000]) {
      await seedUsers(x.databaseUrl, users);
      const { list, search } = await searchLatency(f.url, x.apiToken, users, seconds);
      table.push(`| ${users.toLocaleString('en')} | ${ms(list.p50)} | ${ms(list.p95)} | ${ms(search.p50)} | ${ms(search.p95)} |`);
      console.log(table.at(-1));
    }
    lines.push(
      '### Users list (page of 20) and search (8 loops)',
      '',
      ...table,
      '',
      'The directory: 60 given names × 120 family names, each address `given.family<n>@example.com`. A search is half the time the start of ' +
        "someone's address, half the time a family name (1 in 120 users: about 830 matches at 100k). A term nearly every user shares " +
        '(`example`) costs a count over the whole directory.',
      '',
    );
  } finally {
    await service.stop();
  }

  const hooks = await webhookRate();
  lines.push(
    '### Webhook deliveries',
    '',
    `${WEBHOOK_EVENTS.toLocaleString('en')} committed \`user_updated\` events, one receiver answering 204 on 127.0.0.1: ` +
      `**${Math.round(hooks.rate).toLocaleString('en')} deliveries/s** end to end (outbox → relay → BullMQ → signed POST; ${hooks.received} received in ${hooks.seconds.toFixed(1)} s), ` +
      'the relay and the workers in the serving process (`worker.embedded`), worker concurrency 100.',
    '',
  );
  console.log(lines.at(-2));

  const idle = await idleProcesses();
  lines.push(
    '### Processes (compiled build, PostgreSQL, Redis)',
    '',
    '| measure | value |',
    '|---|---|',
    `| \`idp serve\` start-up to ready (migrations on a fresh database, first key) | ${Math.round(idle.startupMs)} ms |`,
    `| \`idp serve\` idle resident memory | ${idle.serveMb.toFixed(0)} MB |`,
    `| \`idp worker\` idle resident memory | ${idle.workerMb.toFixed(0)} MB |`,
    '',
  );
  console.log(lines.slice(-4).join('\n'));
  return lines;
}
