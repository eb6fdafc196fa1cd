/**
 * What every load run shares: a clock and a log line, expectations (only correctness is asserted), and the
 * guarantee that the run ends — a hard overall deadline, SIGINT/SIGTERM and any uncaught error close everything
 * the run registered (each step bounded) and exit non-zero. `finish` prints the verdict, writes the run's section
 * of docs/performance.md (unless LOAD_WRITE_DOCS=0) and exits.
 */
import { Redis } from 'ioredis';
import { ROOT } from '../helpers/paths.js';
import { writeSection } from './figures.js';

export interface Outcome {
  name: string;
  ok: boolean;
  detail: string;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The first few items, short enough for one line of a report. */
export const sample = <T>(items: T[], n = 3) => JSON.stringify(items.slice(0, n)).slice(0, 600);
export const describeError = (reason: unknown) => (reason instanceof Error ? reason.message : String(reason)).slice(0, 300);

const STEP_MS = 15_000;

export function startHarness(name: string, deadlineMs: number) {
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const outcomes: Outcome[] = [];
  const steps: Array<[string, () => Promise<unknown>]> = [];
  let cleaning: Promise<void> | undefined;
  let stopping = false;

  function cleanup(): Promise<void> {
    cleaning ??= (async () => {
      for (const [step, run] of steps) {
        try {
          await Promise.race([
            run(),
            sleep(STEP_MS).then(() => {
              throw new Error(`did not close within ${STEP_MS / 1000} s`);
            }),
          ]);
        } catch (error) {
          console.error(`cleanup: ${step}: ${(error as Error).message}`);
        }
      }
    })();
    return cleaning;
  }

  /** Closes everything and exits with `code`; a cleanup that hangs is cut off after 20 s. */
  function abort(code: number, message: string) {
    stopping = true;
    console.error(`\n${name}: ${message}`);
    const force = setTimeout(() => process.exit(code), 20_000);
    force.unref();
    void cleanup().finally(() => process.exit(code));
  }

  // Anything thrown outside the run (a child's stream, a helper) fails it; once stopping, connections cut by cleanup are expected.
  const uncaught = (kind: string) => (error: unknown) => {
    if (!stopping) abort(1, `${kind}: ${(error as Error)?.stack ?? error}`);
  };
  process.on('uncaughtException', uncaught('uncaught exception'));
  process.on('unhandledRejection', uncaught('unhandled rejection'));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => abort(130, `${signal}; closing everything.`));
  const hardStop = setTimeout(
    () => abort(3, `the overall deadline of ${deadlineMs / 1000} s passed (${elapsed()}); closing everything and failing.`),
    deadlineMs,
  );

  return {
    started,
    elapsed,
    outcomes,
    log: (line: string) => console.log(`[${elapsed().padStart(7)}] ${line}`),
    get stopping() {
      return stopping;
    },
    expectThat(what: string, ok: boolean, detail = '') {
      outcomes.push({ name: what, ok, detail });
      console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ` — ${detail}` : ''}`);
    },
    /** Runs on every way out, in the order added, each within 15 s. */
    onCleanup(step: string, run: () => Promise<unknown>) {
      steps.push([step, run]);
    },
    /**
     * After the run: closes everything, prints the verdict, writes `report()` under `heading` in docs/performance.md
     * when the run got far enough to have one, and exits (1 on a crash or a failed expectation).
     */
    async finish(crash: string | undefined, heading: string, report: (failures: Outcome[]) => string | undefined): Promise<never> {
      clearTimeout(hardStop);
      if (stopping) await new Promise(() => {}); // the deadline or an uncaught error is already closing everything and will exit
      stopping = true;
      await cleanup();
      const failures = outcomes.filter((outcome) => !outcome.ok);
      console.log(
        `\n${outcomes.length - failures.length}/${outcomes.length} expectations held${crash ? '; the run crashed' : ''} (${elapsed()}).`,
      );
      for (const failure of failures) console.log(`  FAIL ${failure.name}${failure.detail ? ` — ${failure.detail}` : ''}`);
      const body = report(failures);
      if (body !== undefined && process.env.LOAD_WRITE_DOCS === '0')
        console.log(`\n${heading} (not written: LOAD_WRITE_DOCS=0)\n\n${body}`);
      else if (body !== undefined) console.log(`figures written to ${writeSection(ROOT, heading, body)}`);
      process.exit(crash || failures.length ? 1 : 0);
    },
  };
}

export type Harness = ReturnType<typeof startHarness>;

/** Deletes a run's keys (its queues) from the shared Redis. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
  redis.on('error', () => {});
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
