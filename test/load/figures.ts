/**
 * Figures for `npm run test:load` and `npm run test:scale`: percentiles, bounded concurrency, the machine
 * description, and each run's own section of docs/performance.md (replaced in place, other sections kept).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';

/** Runs `task(0…count-1)` with at most `limit` in flight; collects every outcome (never rejects). */
export async function runBounded<T>(
  count: number,
  limit: number,
  task: (index: number) => Promise<T>,
): Promise<Array<PromiseSettledResult<T>>> {
  const results: Array<PromiseSettledResult<T>> = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await task(index) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
  return results;
}

/** Nearest-rank percentile of `values` (ms), 0 for none. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** A small deterministic PRNG (mulberry32), so a run's failure pattern can be replayed with its seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Machine {
  cpus: number;
  model: string;
  memoryGiB: number;
  node: string;
  os: string;
  postgres: string;
  redis: string;
}

export function describeMachine(postgres: string, redis: string): Machine {
  const cpus = os.cpus();
  return {
    cpus: os.availableParallelism?.() ?? cpus.length,
    model: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    postgres,
    redis,
  };
}

/** The machine, and the versions of the PostgreSQL and Redis servers the run uses. */
export async function readMachine(databaseUrl: string, redisUrl: string): Promise<Machine> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  let postgres: string;
  try {
    postgres = String((await admin.query('show server_version')).rows[0].server_version);
  } finally {
    await admin.end();
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    return describeMachine(postgres, /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown');
  } finally {
    redis.disconnect();
  }
}

export const machineLine = (machine: Machine) =>
  `${machine.cpus} CPUs (${machine.model}), ${machine.memoryGiB} GiB, Node ${machine.node}, PostgreSQL ${machine.postgres}, Redis ${machine.redis}`;

/** The report's lines on where and what was measured: machine, date, commit. */
export function machineParagraph(machine: Machine, root: string): string[] {
  const revision = describeRevision(root);
  return [
    `Machine: ${machine.cpus} CPUs (${machine.model}), ${machine.memoryGiB} GiB memory, Node ${machine.node}, ${machine.os},`,
    `PostgreSQL ${machine.postgres}, Redis ${machine.redis}; PostgreSQL and Redis on the same machine. Date: ${new Date().toISOString().slice(0, 10)}.`,
    ...(revision ? [`Code: ${revision}.`] : []),
  ];
}

/** The code measured: LOAD_REVISION, else the git commit (read only: no index refresh), noting uncommitted changes. */
export function describeRevision(root: string): string | undefined {
  if (process.env.LOAD_REVISION) return process.env.LOAD_REVISION;
  try {
    const git = (...args: string[]) =>
      execFileSync('git', ['--no-optional-locks', '-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const commit = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') ? `${commit} with uncommitted changes` : commit;
  } catch {
    return undefined;
  }
}

/** Replaces (or appends) the section under `heading` ("## …") of docs/performance.md; creates the file with only that section. */
export function writeSection(root: string, heading: string, body: string): string {
  const file = path.join(root, 'docs', 'performance.md');
  const section = `${heading}\n\n${body.trim()}\n`;
  if (!existsSync(file)) {
    writeFileSync(file, section);
    return file;
  }
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(heading);
  if (start < 0) {
    writeFileSync(file, `${text.replace(/\s*$/, '')}\n\n${section}`);
    return file;
  }
  const after = text.slice(start + heading.length);
  const nextHeading = after.search(/\n## /);
  const rest = nextHeading < 0 ? '' : after.slice(nextHeading + 1);
  writeFileSync(file, `${text.slice(0, start)}${section}${rest ? `\n${rest}` : ''}`);
  return file;
}
