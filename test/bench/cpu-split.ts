/**
 * `npm run bench:cpu -- <scenario>`: where the machine's CPU goes while the service answers one protocol
 * scenario: the service process, PostgreSQL's processes, Redis and the load generator (this process), from
 * /proc before and after. Explains a ratio the profile of the service alone cannot (the database's share).
 * BENCH_SERVER=bare measures the bare engine instead (its process is reported as "service").
 */
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { runLoops } from './loops.js';
import { namedScenario, scenarioNames } from './named-scenarios.js';
import { startProcess } from './processes.js';

const TICKS = 100; // USER_HZ on Linux
const cpuOf = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime + stime, seconds
  } catch {
    return 0;
  }
};
const pidsOf = (name: string) => execSync(`pgrep -x ${name} || true`).toString().split('\n').filter(Boolean).map(Number);
const sample = (service: number) => ({
  service: cpuOf(service),
  postgres: pidsOf('postgres').reduce((sum, pid) => sum + cpuOf(pid), 0),
  redis: pidsOf('redis-server').reduce((sum, pid) => sum + cpuOf(pid), 0),
  load: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
});

const name = process.argv[2] ?? 'UserInfo';
if (!scenarioNames().includes(name)) {
  console.error(`unknown scenario "${name}"; one of: ${scenarioNames().join(', ')}`);
  process.exit(2);
}
const service = await startProcess(process.env.BENCH_SERVER === 'bare' ? 'bare-engine.ts' : 'service-process.ts');
const { loops, op } = namedScenario(name, service.fixture)!;
await runLoops(loops, 2, op);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const before = sample(service.fixture.pid);
const result = await runLoops(loops, seconds, op);
const after = sample(service.fixture.pid);
await service.stop();
console.log(`${name}: ${result.perSecond.toFixed(0)}/s over ${seconds} s on ${(await import('node:os')).cpus().length} CPUs`);
for (const key of ['service', 'postgres', 'redis', 'load'] as const) {
  const used = after[key] - before[key];
  console.log(`${key.padEnd(9)} ${(used / seconds).toFixed(2)} CPUs  ${((1e6 * used) / result.ops).toFixed(0)} µs CPU per request`);
}
