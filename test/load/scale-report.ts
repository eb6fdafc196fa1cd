/** The "## Scale-out (npm run test:scale)" section of docs/performance.md: what one run of test/load/scale-out.load.ts measured. */
import { machineParagraph, type Machine } from './figures.js';
import type { Outcome } from './harness.js';
import type { ScaleFigures } from './scale-verify.js';

export interface ScaleRun {
  failures: Outcome[];
  checks: number;
  clients: number;
  peoplePerClient: number;
  readySeconds: number;
  loadSeconds: number;
  killAtSeconds: number;
  windowSeconds: number;
  pool: { serve: number; worker: number };
  settings: { webhooks: { backoff_seconds: number }; worker: { concurrency: number; stalled_interval_ms: number } };
  receiverDelayMs: readonly [number, number];
}

const KINDS: Record<string, string> = {
  'sign-in page': 'sign-in pages (authorize, e-mail, password, back to authorize)',
  'code exchange': 'code exchange',
  refresh: 'refresh grant (the rotated token)',
  userinfo: 'UserInfo',
  'api write': 'API write (PATCH a user: a webhook each)',
  check: 'checks, aimed at one replica (not retried)',
};
const seconds = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);
const again = ([first, last]: number[]) =>
  first === undefined ? '' : `, ${seconds(first)}${seconds(last) === seconds(first) ? '' : ` to ${seconds(last)}`} after the SIGKILL`;

export function scaleReport(root: string, machine: Machine, f: ScaleFigures, run: ScaleRun): string {
  const r = f.requests;
  const tally = (what: string) => f.tally[what] ?? 0;
  const lines = [
    'Three `idp serve` replicas and two `idp worker`s, started as an operator starts them (`node --import tsx src/main.ts',
    'serve|worker`, configured through the environment), on one PostgreSQL database and one Redis. The clients send each',
    'request to the next replica in turn and try a failed one once more at the next; a replica that refuses connections',
    `leaves the turn. ${run.killAtSeconds} s into the load one replica and one worker are killed with SIGKILL. Only correctness is`,
    'asserted; the figures are what one run measured (`test/load/scale-out.load.ts`; rerun with `npm run test:scale`).',
    '',
    ...machineParagraph(machine, root),
    `Settings: config/test.yaml (bcrypt cost 4), database pool ${run.pool.serve} per replica and ${run.pool.worker} per worker, worker`,
    `concurrency ${run.settings.worker.concurrency}, \`worker.stalled_interval_ms\` ${run.settings.worker.stalled_interval_ms}, webhook backoff ${run.settings.webhooks.backoff_seconds} s; the receiver answers after`,
    `${run.receiverDelayMs[0]}–${run.receiverDelayMs[1]} ms. ${run.clients} clients for ${run.loadSeconds} s, each with ${run.peoplePerClient} people of its own. The five`,
    `processes were ready ${run.readySeconds} s after they were started together (through tsx, on a busy machine).`,
    '',
    '| requests | sent | retried at the next replica | failed after the retry | p50 | p95 |',
    '|---|---|---|---|---|---|',
    ...Object.keys(KINDS)
      .flatMap((kind) => r.byKind.filter((k) => k.kind === kind))
      .map((k) => `| ${KINDS[k.kind]} | ${k.sent} | ${k.retried} | ${k.failed} | ${k.p50} ms | ${k.p95} ms |`),
    `| all, in ${run.loadSeconds} s | ${r.requests} | ${r.byKind.reduce((n, k) => n + k.retried, 0)} | ${r.byKind.reduce((n, k) => n + k.failed, 0)} | | |`,
    '',
    `Checks aimed at named replicas (each on a token every replica had just answered for): ${tally('checks: revoke access token')} access-token`,
    `and ${tally('checks: revoke refresh token')} refresh-token revocations, ${tally('checks: deactivate')} deactivations through the API, ${tally('checks: replay rotated token')} replays of a rotated refresh`,
    `token at another replica — each refused at the other replicas at once (UserInfo 401, refresh \`invalid_grant\`);`,
    `${tally('checks cut short by the kill')} cut short by the kill. After the run none of the ${f.revoked} tokens they ended worked at any replica.`,
    '',
    `| the kill (window: ${run.windowSeconds} s from the SIGKILL) | |`,
    '|---|---|',
    `| failed attempts in the window | ${r.failedAttemptsInWindow} (${r.inWindowByError.map(([error, n]) => `${n} ${error}`).join(', ') || 'none'}) |`,
    `| requests retried at the next replica | ${r.retried} (${r.refused} refused, ${r.retried - r.refused} cut off in flight), each answered there |`,
    `| work lost in flight with the replica | ${tally('sign-ins started over')} sign-ins started over, ${tally('refreshes lost in flight')} refresh chains ended (rotated at the dead replica) |`,
    `| the dead replica left the turn | ${seconds(r.outOfTurnMs)} after the SIGKILL |`,
    `| recovery (the last failed attempt) | ${seconds(r.recoveryMs)} after the SIGKILL; nothing failed outside the window |`,
    `| answers per second | ${r.ratePerSecond.before} before the kill, ${r.ratePerSecond.after} after the window${r.ratePerSecond.after >= r.ratePerSecond.before ? ` (${machine.cpus} CPUs: a process fewer leaves more to the rest)` : ''} |`,
    `| deliveries the killed worker held | ${f.sentAgain} sent again by the other worker${again(f.sentAgainMs)} |`,
    '',
    `Webhooks: ${f.events} events (${f.eventsByType.user_updated} user_updated, ${f.eventsByType.user_deactivated} user_deactivated), every one delivered; the receiver got`,
    `${f.received} requests, ${f.duplicates} of them for an event it already had (deliveries are at least once, with the same event id:`,
    `one in flight at the killed worker is sent again by the other). From the commit to the receiver: p50 ${f.deliveryMs.p50} ms,`,
    `p95 ${f.deliveryMs.p95} ms, max ${f.deliveryMs.max} ms; all settled ${f.settleSeconds} s after the load.`,
    '',
    run.failures.length
      ? `Outcome: FAILED — ${run.failures.map((failure) => failure.name).join('; ')}.`
      : `Outcome: every expectation held (${run.checks} checks: no acknowledged write or event lost, no token usable after its revocation at another replica, every retried request answered, nothing failed or answered 5xx outside the kill window, no error logged).`,
  ];
  return lines.join('\n');
}
