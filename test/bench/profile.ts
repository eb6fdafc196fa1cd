/**
 * `npm run bench:profile -- <scenario>`: the service under one protocol scenario for BENCH_SECONDS (default 10)
 * with --cpu-prof, then where its CPU went: self time by package or source file, and the top functions. The
 * profile file stays in /tmp/idp-profile/ for Chrome DevTools. BENCH_SERVER=bare profiles the bare engine instead.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { runLoops } from './loops.js';
import { namedScenario, scenarioNames } from './named-scenarios.js';
import { startProcess } from './processes.js';

const name = process.argv[2] ?? 'UserInfo';
if (!scenarioNames().includes(name)) {
  console.error(`unknown scenario "${name}"; one of: ${scenarioNames().join(', ')}`);
  process.exit(2);
}
const dir = '/tmp/idp-profile';
await rm(dir, { recursive: true, force: true });
const script = process.env.BENCH_SERVER === 'bare' ? 'bare-engine.ts' : 'service-process.ts';
const service = await startProcess(script, {}, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
const { loops, op } = namedScenario(name, service.fixture)!;
await runLoops(loops, 2, op); // warm up
const result = await runLoops(loops, Number(process.env.BENCH_SECONDS ?? 10), op);
await service.stop();
console.log(`${name}: ${result.perSecond.toFixed(0)}/s, p50 ${result.p50.toFixed(1)} ms, errors ${result.errors}`);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}
const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'))!;
const profile = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as { nodes: Node[] };
const total = profile.nodes.reduce((sum, node) => sum + node.hitCount, 0);
const where = (url: string) => {
  if (!url) return '(native / idle)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith('node:')) return url;
  return url.replace(/^.*\/work\/[^/]+\//, '').replace(/^file:\/\//, '');
};
const byPlace = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const node of profile.nodes) {
  const place = where(node.callFrame.url);
  byPlace.set(place, (byPlace.get(place) ?? 0) + node.hitCount);
  const fn = `${node.callFrame.functionName || '(anonymous)'} ${place}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.hitCount);
}
const top = (map: Map<string, number>, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, hits]) => `${((100 * hits) / total).toFixed(1).padStart(5)}%  ${key}`)
    .join('\n');
console.log(`\nSelf time by place (${path.join(dir, file)}):\n${top(byPlace, 25)}\n\nTop functions:\n${top(byFunction, 30)}`);
