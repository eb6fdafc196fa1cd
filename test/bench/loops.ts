/**
 * The benchmark's load: N loops, each doing one request (or one short sequence) after another for a fixed time,
 * over keep-alive HTTP connections. Reports operations per second and latency percentiles. Measures; asserts nothing.
 */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: init.method ?? 'GET', headers: init.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/** The middle value (the upper one of an even count). */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
export const FORM = 'application/x-www-form-urlencoded';

export interface LoopResult {
  ops: number;
  errors: number;
  perSecond: number;
  p50: number;
  p95: number;
  firstError?: string;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : 0;

/** Runs `op(loop)` in `loops` concurrent loops for `seconds`; an op that throws counts as an error. */
export async function runLoops(loops: number, seconds: number, op: (loop: number) => Promise<void>): Promise<LoopResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: loops }, async (_unused, loop) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          await op(loop);
          latencies.push(performance.now() - t0);
        } catch (error) {
          errors += 1;
          firstError ??= (error as Error).message;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ops: latencies.length,
    errors,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    firstError,
  };
}

export function expectStatus(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${answer.body.slice(0, 200)}`);
  return answer;
}
