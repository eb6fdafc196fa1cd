/**
 * Graceful shutdown of a real `idp serve` process: on SIGTERM it refuses new connections, lets a request in flight
 * finish (its body still arriving), and exits 0; through `npm start` the signal reaches the service itself.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServe } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';

const TOKEN = 'shutdown-test-token-0123456789abcdef';

/** `idp serve` with a long grace period and the info log (the shutdown lines) on. */
const startForShutdown = () =>
  startServe({
    IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-shutdown-')),
    IDP_BOOTSTRAP_TOKEN: TOKEN,
    NODE_CONFIG: JSON.stringify({ secrets: { key: 'k'.repeat(64) }, server: { shutdown_grace_seconds: 20 }, worker: { embedded: false } }),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    LOG_LEVEL: 'info',
  });

/** A POST whose body arrives in two parts, 1.5 s apart: the server is in the middle of it when a signal comes. */
function requestInFlight(url: string, name: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: hostname,
        port,
        method: 'POST',
        path: '/api/v3/core/groups/',
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          'Content-Type': 'application/json',
          'Transfer-Encoding': 'chunked',
        },
      },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      },
    );
    request.on('error', reject);
    request.write('{"name": ');
    setTimeout(() => request.end(`${JSON.stringify(name)}}`), 1500);
  });
}

test('SIGTERM: the request in flight completes, new connections are refused, exit code 0', async () => {
  const serve = await startForShutdown();
  const answer = requestInFlight(serve.url, 'in flight');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const exited = serve.stop(); // SIGTERM
  await new Promise((resolve) => setTimeout(resolve, 500));
  await expect(fetch(`${serve.url}/-/health/live/`)).rejects.toThrow(); // no new connections
  const { status, body } = await answer;
  expect(status).toBe(201);
  expect(JSON.parse(body)).toMatchObject({ name: 'in flight' });
  expect(await exited).toBe(0);
  expect(serve.output()).toContain('shutting down');
}, 90_000);

test('Ctrl-C under npm start (two SIGINTs): the second does not cut the graceful stop short, and says so', async () => {
  const serve = await startForShutdown();
  const answer = requestInFlight(serve.url, 'after two signals');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const exited = new Promise<number | null>((resolve) => {
    serve.signal('SIGINT'); // the terminal's, to the whole process group
    setTimeout(() => serve.signal('SIGINT'), 200); // npm forwards its own
    void serve.stop().then(resolve); // and a third, as a container runtime repeats SIGTERM
  });
  const { status, body } = await answer;
  expect(status).toBe(201);
  expect(JSON.parse(body)).toMatchObject({ name: 'after two signals' });
  expect(await exited).toBe(0);
  const lines = serve
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; signal?: string });
  expect(lines.filter((line) => line.msg.startsWith('shutting down'))).toHaveLength(1);
  const repeated = lines.filter((line) => line.msg.startsWith('already stopping gracefully'));
  expect(repeated.length).toBeGreaterThanOrEqual(1);
  expect(repeated[0]!.msg).toContain('requests in flight get up to 20 s');
}, 240_000);

test('SIGTERM to `npm start` stops the service itself: nothing is left holding the port', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-npm-start-')) };
  delete env.NODE_OPTIONS; // Jest's flags are not for the child
  const npm = spawn('npm', ['start', '--', '--port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  npm.stdout!.on('data', (chunk) => (output += chunk));
  npm.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!/listening on (http:\/\/\S+)/.test(output) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
  expect((await fetch(`${url}/-/health/live/`)).status).toBe(200);
  npm.kill('SIGTERM');
  await exited;
  // The service went with npm: its port refuses connections (an orphan would still answer).
  let answered = true;
  for (let i = 0; i < 50 && answered; i++) {
    answered = await fetch(`${url}/-/health/live/`).then(
      () => true,
      () => false,
    );
    if (answered) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(answered).toBe(false);
}, 90_000);
