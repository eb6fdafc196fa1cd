/** Starts a benchmark server as its own process and waits for its READY line; stops it by its pid. */
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchFixture } from './fixture.js';
import { ROOT } from '../helpers/paths.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Running<T> {
  fixture: T;
  child: ChildProcess;
  stop(): Promise<void>;
}

let built = false;
/** The service runs from dist/ (service-process.ts): compiled once per bench run, from the code as it is. */
function buildOnce() {
  // npm start's command runs the sources; BENCH_ENTRY names a build made beforehand (an A/B of two versions).
  if (built || process.env.BENCH_START === 'npm' || process.env.BENCH_ENTRY) return;
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  built = true;
}

export async function startProcess<T = BenchFixture>(
  script: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Running<T>> {
  if (script === 'service-process.ts') {
    // The launcher passes the node flags (--cpu-prof…) on to the service it starts.
    buildOnce();
    env = { ...env, BENCH_NODE_ARGS: nodeArgs.join(' ') };
    nodeArgs = [];
  }
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(here, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const fixture = await new Promise<T>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      if (line.startsWith('READY ')) resolve(JSON.parse(line.slice(6)) as T);
    });
  });
  return {
    fixture,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** Resident memory of a process in MB (Linux /proc). */
export async function residentMb(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}
