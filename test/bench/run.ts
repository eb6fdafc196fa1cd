/**
 * `npm run bench`: the service on PostgreSQL against the bare engine (oidc-provider alone, in-memory adapter,
 * the same protocol settings), the same requests in one run, interleaved round by round; then what only the
 * service has (password sign-ins against raw bcrypt, user search at 1k and 100k users, webhook deliveries, idle
 * memory, start-up). Prints Markdown tables and writes them into docs/performance.md. A benchmark: it measures
 * and asserts nothing. BENCH_SECONDS (per scenario and round, default 5), BENCH_ROUNDS (default 3), BENCH_WARMUP_SECONDS
 * (unmeasured, per scenario and server, before the rounds; default 1); BENCH_ONLY
 * (scenario names, comma-separated, e.g. `refresh grant,refresh grant (ES256),refresh grant (EdDSA)`) runs just those
 * protocol scenarios and writes nothing.
 */
import os from 'node:os';
import { execSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LOOPS, type BenchFixture } from './fixture.js';
import { median, runLoops, type LoopResult } from './loops.js';
import { protocolScenarios } from './protocol-scenarios.js';
import { startProcess } from './processes.js';
import { serviceOnlySections } from './service-scenarios.js';
import { benchDatabaseUrl, transportOf } from './database-url.js';
import { ROOT } from '../helpers/paths.js';

if (!process.env.TEST_DATABASE_URL) {
  console.error('npm run bench needs PostgreSQL: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test), as .ci/run does.');
  process.exit(2);
}
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(1));

const bare = await startProcess('bare-engine.ts');
const service = await startProcess('service-process.ts');
const servers: Array<{ fixture: BenchFixture }> = [bare, service];

const rows: string[] = [];
try {
  console.log(`Protocol: ${LOOPS} concurrent loops, ${seconds} s per scenario and server, ${rounds} rounds interleaved (median)\n`);
  const header = '| scenario | bare engine /s | service /s | ratio | service p50 ms | service p95 ms |\n|---|---|---|---|---|---|';
  console.log(header);
  for (const [name, scenario] of Object.entries(protocolScenarios)) {
    if (only && !only.includes(name)) continue;
    const ops = servers.map(({ fixture }) => scenario(fixture));
    const results: LoopResult[][] = [[], []];
    // Each server first runs the scenario unmeasured for a second: its first round is otherwise also its JIT's.
    for (const op of ops) await runLoops(LOOPS, warmup, op);
    for (let round = 0; round < rounds; round += 1) {
      // Alternate who goes first, so neither always runs on a warmer (or more tired) machine.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) results[i]!.push(await runLoops(LOOPS, seconds, ops[i]!));
    }
    const [engineRate, serviceRate] = results.map((list) => median(list.map((r) => r.perSecond)));
    // The ratio of each round (its two runs seconds apart), then their median: the machine's drift between rounds cancels.
    const ratio = median(results[1]!.map((r, i) => r.perSecond / results[0]![i]!.perSecond));
    const last = results[1]!.at(-1)!;
    const errors = results.flat().reduce((sum, r) => sum + r.errors, 0);
    const row = `| ${name} | ${fmt(engineRate!)} | ${fmt(serviceRate!)} | ${ratio.toFixed(2)}× | ${last.p50.toFixed(1)} | ${last.p95.toFixed(1)} |`;
    rows.push(row);
    console.log(row + (errors ? `  (${errors} errors: ${results.flat().find((r) => r.firstError)?.firstError})` : ''));
  }
} finally {
  await bare.stop();
  await service.stop();
}

if (only) process.exit(0);
const sections = await serviceOnlySections(seconds, rounds);

const machine = `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${os.type()} ${os.release()}`;
const commit =
  execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim() +
  (execSync('git status --porcelain', { cwd: ROOT }).toString().trim() ? ' with uncommitted changes' : '');
const report = [
  '<!-- bench:start (written by npm run bench) -->',
  '## Benchmark (npm run bench)',
  '',
  `Machine: ${machine}; PostgreSQL (over ${transportOf(benchDatabaseUrl(process.env.TEST_DATABASE_URL))}) and Redis on the same machine. Date: ${new Date().toISOString().slice(0, 10)}. Code: ${commit}.`,
  `Protocol requests: ${LOOPS} concurrent loops over keep-alive connections, ${seconds} s per scenario and server after ${warmup} s unmeasured, ${rounds} rounds interleaved: the median of each rate, and the median of the rounds' ratios. ` +
    'Bare engine: oidc-provider with its in-memory adapter and the same protocol settings (PKCE, claims, lifetimes, refresh rotation) and signing keys (RSA 2048, P-256, Ed25519). ' +
    'ID tokens are signed with RS256, except in the rows marked (ES256) and (EdDSA): the same requests for an application signing with that algorithm, on both servers. ' +
    'Service: started as its users start it (`node dist/src/main.js serve`, NODE_ENV=production, default settings: request log on stdout at info, ' +
    'PostgreSQL pool 10, Redis rate limits), one process; on both servers the sessions and tokens come from sign-ins over HTTP. ' +
    'Each server is its own process; the load comes from a third.',
  '',
  '| scenario | bare engine /s | service /s | ratio | service p50 ms | service p95 ms |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
  ...sections,
  '<!-- bench:end -->',
].join('\n');
console.log(`\n${sections.join('\n')}`);

const file = path.join(ROOT, 'docs/performance.md');
const current = await readFile(file, 'utf8').catch(() => '');
const kept = current.replace(/<!-- bench:start[\s\S]*?<!-- bench:end -->\n*/, '');
await writeFile(file, `# Performance\n\n${report}\n\n${kept.replace(/^# Performance\n+/, '')}`);
console.log('\nWrote docs/performance.md');
