/** Runs the real `idp` entry point in a child process (through tsx) and collects its output. */
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from './paths.js';

/**
 * The last line a process printed. Earlier stderr lines may hold oidc-provider's "Unsupported runtime"
 * notice on Node 20 (it prints on import and cannot be turned off).
 */
export const lastLine = (text: string) => text.trim().split('\n').pop() ?? '';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const baseEnv = () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test' };
  delete env.NODE_OPTIONS; // Jest's --experimental-vm-modules is not for the child
  delete env.NODE_CONFIG;
  return env;
};

export function startIdp(args: string[], env: Record<string, string | undefined> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function runIdp(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = startIdp(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `idp serve` (on any free port unless `args` say otherwise) and resolves once it printed its URL; collects everything it prints. */
export async function startServe(
  env: Record<string, string | undefined>,
  args: string[] = ['serve', '--port', '0'],
): Promise<{ url: string; output: () => string; signal(name: NodeJS.Signals): void; stop(): Promise<number | null> }> {
  const child = startIdp(args, env);
  let output = '';
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: a first start creates and migrates the embedded database, slow on a busy machine.
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 150_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        // The bootstrap token lines follow the URL line in the same write burst; give them a moment.
        setTimeout(() => resolve(match[1]!), 200);
      }
    });
    child.on('exit', () => reject(new Error(`serve exited:\n${output}`)));
  });
  return {
    url,
    output: () => output,
    signal: (name) => void child.kill(name),
    stop: () =>
      new Promise((resolve) => {
        child.on('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
