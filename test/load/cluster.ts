/**
 * Real `idp serve` and `idp worker` processes (node --import tsx src/main.ts …), as an operator runs them beside
 * each other: each is known by its PID, its JSON log lines at warn and above are kept with the time they were
 * written, and every one of them is stopped on every way out (SIGTERM, then SIGKILL; SIGKILL from the exit hook
 * if the run itself dies first).
 */
import type { ChildProcess } from 'node:child_process';
import { startIdp } from '../helpers/cli.js';

export interface LogLine {
  process: string;
  /** ms since the epoch (pino's `time`, else when it was read). */
  at: number;
  level: number;
  msg: string;
  text: string;
}

export interface IdpProcess {
  name: string;
  pid: number;
  /** The listener's URL (serve only). */
  url?: string;
  exited: Promise<number | null>;
  /** Sends `signal` by PID and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

const running = new Set<ChildProcess>();
// The last resort: whatever happens to the run, no process it started outlives it.
process.on('exit', () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
});

/**
 * Starts `idp <args>` with `env` and resolves once its output matches `ready` (the URL is the first group, if any);
 * its warnings and errors go to `onLog`.
 */
export async function startIdpProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  onLog: (line: LogLine) => void,
  timeoutMs: number,
): Promise<IdpProcess> {
  const child = startIdp(args, env);
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  let output = '';
  const readLines = (stream: NodeJS.ReadableStream, onText: (text: string) => void) => {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      for (const text of lines) if (text.trim()) onText(text);
    });
  };
  const started = new Promise<string | undefined>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${timeoutMs / 1000} s:\n${output.slice(-2000)}`)),
      timeoutMs,
    );
    const onText = (text: string) => {
      if (output.length < 20_000) output += `${text}\n`;
      const match = ready.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    readLines(child.stdout!, (text) => {
      onText(text);
      if (!text.startsWith('{')) return;
      try {
        const line = JSON.parse(text) as { level?: number; msg?: string; time?: number };
        if ((line.level ?? 0) >= 40) onLog({ process: name, at: line.time ?? Date.now(), level: line.level!, msg: line.msg ?? '', text });
      } catch {
        // a line for people, not the log
      }
    });
    readLines(child.stderr!, onText);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before it was ready:\n${output.slice(-2000)}`));
    });
  });
  const pid = child.pid!;
  const url = await started.catch(async (error: Error) => {
    if (child.exitCode === null) {
      process.kill(pid, 'SIGKILL');
      await exited;
    }
    throw error;
  });
  return {
    name,
    pid,
    url,
    exited,
    async kill(signal) {
      try {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, signal);
      } catch {
        // it exited a moment ago
      }
      await exited;
    },
  };
}

/** SIGTERM, and SIGKILL for what has not exited within `graceMs`. */
export async function stopAll(processes: IdpProcess[], graceMs = 10_000): Promise<void> {
  await Promise.all(
    processes.map(async (idp) => {
      const done = idp.kill('SIGTERM');
      const late = await Promise.race([done.then(() => false), new Promise((resolve) => setTimeout(() => resolve(true), graceMs))]);
      if (late) await idp.kill('SIGKILL');
    }),
  );
}

/** Polls `url` until it answers 200 (readiness: its database and Redis answer). */
export async function waitUntilReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      last = `${response.status} ${await response.text()}`;
      if (response.status === 200) return;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} was not ready within ${timeoutMs / 1000} s (last answer: ${last.slice(0, 300)})`);
}
