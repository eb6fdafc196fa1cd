/**
 * What `npm run test:scale` asserts once the load is over, from what the clients saw (the balancer's record of
 * every attempt), what the database holds and what the receiver got; and the figures of the run.
 */
import pg from 'pg';
import type { LogLine } from './cluster.js';
import type { Attempt, RequestRecord } from './balancer.js';
import { sweepRevoked, CHECKS, type Clients, type Person } from './scale-clients.js';
import { percentile, round } from './figures.js';
import { sample, sleep } from './harness.js';
import { EVENT_TYPES } from '../../src/domain/events.js';

/** The events an application's webhook receives (the outbox also carries backchannel logouts, for applications that have them). */
const WEBHOOK_EVENTS = [...EVENT_TYPES];

export interface Receipts {
  /** Per event id, when each request for it arrived (ms since the run's clock started). */
  at: Map<string, number[]>;
  types: Map<string, string>;
  badSignatures: string[];
}

export interface Window {
  loadStart: number;
  loadEnd: number;
  /** The SIGKILLs, and the end of the window in which their errors are expected. */
  killAt: number;
  killEnd: number;
  deadReplica: number;
}

/** Waits until every event is dispatched, no delivery is pending and the receiver has every event id. */
export async function settleDeliveries(databaseUrl: string, receipts: Receipts, timeoutMs: number, log: (line: string) => void) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const began = Date.now();
  let lastReport = 0;
  try {
    while (Date.now() - began < timeoutMs) {
      const { rows } = await client.query<{ id: string; dispatched: boolean; pending: boolean }>(
        `select o.id, o.dispatched_at is not null as dispatched, bool_or(d.status = 'pending') as pending
           from outbox o left join deliveries d on d.event_id = o.id where o.type = any($1) group by o.id`,
        [WEBHOOK_EVENTS],
      );
      const waiting = rows.filter((row) => !row.dispatched || row.pending || !receipts.at.has(row.id));
      if (!waiting.length) return { settled: true, seconds: round((Date.now() - began) / 1000, 1) };
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        log(`settling: ${waiting.length} of ${rows.length} events not yet delivered`);
      }
      await sleep(500);
    }
    return { settled: false, seconds: round((Date.now() - began) / 1000, 1) };
  } finally {
    await client.end();
  }
}

const failedAttempt = (attempt: Attempt) => attempt.error !== undefined || (attempt.status ?? 0) >= 500;
const endOf = (attempt: Attempt) => attempt.at + attempt.ms;
const within = (t: number, from: number, to: number) => t >= from && t <= to;

/** Requests by kind, the kill window's errors, and the load before and after it. */
function requestFigures(records: RequestRecord[], window: Window) {
  const load = records.filter((record) => record.kind !== 'api setup');
  const kinds = [...new Set(load.map((record) => record.kind))];
  const byKind = kinds.map((kind) => {
    const of = load.filter((record) => record.kind === kind);
    const times = of.map((record) => record.attempts.at(-1)!.ms);
    return {
      kind,
      sent: of.length,
      retried: of.filter((record) => record.attempts.length > 1).length,
      failed: of.filter((record) => failedAttempt(record.attempts.at(-1)!)).length,
      p50: Math.round(percentile(times, 50)),
      p95: Math.round(percentile(times, 95)),
    };
  });
  const attempts = load.flatMap((record) => record.attempts);
  const failures = attempts.filter(failedAttempt);
  const inWindow = failures.filter((attempt) => within(endOf(attempt), window.killAt, window.killEnd));
  const outside = failures.filter((attempt) => !within(endOf(attempt), window.killAt, window.killEnd));
  // A check is aimed at one replica and not retried: what it found is the check's to judge.
  const balanced = load.filter((record) => record.kind !== 'check');
  const retried = balanced.filter((record) => failedAttempt(record.attempts[0]!));
  const refused = retried.filter((record) => record.attempts[0]!.refused);
  const answeredOk = (from: number, to: number) =>
    attempts.filter((attempt) => !failedAttempt(attempt) && within(endOf(attempt), from, to)).length / Math.max(0.001, (to - from) / 1000);
  const perReplica = (from: number, to: number) =>
    [0, 1, 2].map((replica) => attempts.filter((a) => a.replica === replica && !failedAttempt(a) && within(endOf(a), from, to)).length);
  return {
    byKind,
    requests: load.length,
    failedAttemptsInWindow: inWindow.length,
    failedAttemptsOutside: outside,
    fiveXx: failures.filter((attempt) => attempt.status !== undefined).length,
    inWindowByError: Object.entries(
      inWindow.reduce<Record<string, number>>(
        (out, a) => ({ ...out, [a.error ?? String(a.status)]: (out[a.error ?? String(a.status)] ?? 0) + 1 }),
        {},
      ),
    ),
    retriedInWindow: load.filter(
      (record) => record.attempts.length > 1 && within(record.attempts[0]!.at, window.killAt - 30_000, window.killEnd),
    ).length,
    /** Balanced requests whose first attempt failed: each must have been answered (below 500) at the next replica. */
    retried: retried.length,
    notAnsweredOnRetry: retried.filter((record) => record.attempts.length < 2 || failedAttempt(record.attempts[1]!)),
    refused: refused.length,
    /** From the SIGKILL to the end of the last failed attempt (after it, every attempt succeeded). */
    recoveryMs: inWindow.length ? Math.max(...inWindow.map(endOf)) - window.killAt : 0,
    /** From the SIGKILL to the first attempt that found nothing listening: the replica left the turn then. */
    outOfTurnMs: attempts.some((a) => a.refused) ? Math.min(...attempts.filter((a) => a.refused).map(endOf)) - window.killAt : undefined,
    ratePerSecond: { before: round(answeredOk(window.loadStart, window.killAt)), after: round(answeredOk(window.killEnd, window.loadEnd)) },
    perReplica: { before: perReplica(window.loadStart, window.killAt), after: perReplica(window.killAt, window.loadEnd) },
  };
}

export interface VerifyInput {
  databaseUrl: string;
  t0: number;
  clients: Clients;
  people: Person[];
  receipts: Receipts;
  serviceLog: LogLine[];
  window: Window;
  settled: { settled: boolean; seconds: number };
  expectThat(name: string, ok: boolean, detail?: string): void;
}

export async function verify(input: VerifyInput) {
  const { clients, people, receipts, window, expectThat } = input;
  const problemsOf = (...what: string[]) => clients.problems.filter((problem) => what.includes(problem.what));
  const tally = (what: string) => clients.tally[what] ?? 0;
  const show = (items: unknown[]) => (items.length ? `${items.length}, e.g. ${sample(items)}` : '');

  // What the clients saw.
  const requests = requestFigures(clients.balancer.records, window);
  const usual = problemsOf('sign-in', 'refresh', 'userinfo', 'api write');
  expectThat(
    'every sign-in, refresh, UserInfo read and API write did what it should, a retried one included',
    usual.length === 0,
    usual.length
      ? show(usual)
      : `${tally('sign-ins')} sign-ins (${tally('sign-ins started over')} started over after a step lost with the replica)`,
  );
  for (const check of CHECKS) {
    const wrong = problemsOf(check);
    expectThat(
      `${check}: refused at the other replicas at once`,
      wrong.length === 0 && tally(`checks: ${check}`) > 0,
      wrong.length ? show(wrong) : `${tally(`checks: ${check}`)} checks`,
    );
  }
  const stillWorking = await sweepRevoked(clients);
  expectThat(
    'after the run, no revoked token works at any replica',
    stillWorking.length === 0,
    stillWorking.length ? show(stillWorking) : `${clients.revoked.length} tokens, each at ${clients.balancer.live().length} replicas`,
  );
  expectThat(
    'every request that failed at the dead replica was answered at the next one',
    requests.retried > 0 && requests.notAnsweredOnRetry.length === 0,
    requests.notAnsweredOnRetry.length
      ? show(requests.notAnsweredOnRetry)
      : `${requests.retried} requests (${requests.refused} refused, the others cut off in flight)`,
  );
  expectThat(
    'nothing failed and nothing answered 5xx outside the kill window',
    requests.failedAttemptsOutside.length === 0,
    requests.failedAttemptsOutside.length
      ? show(requests.failedAttemptsOutside)
      : `${requests.failedAttemptsInWindow} failed attempts, all in the window`,
  );
  const survivors = [0, 1, 2].filter((replica) => replica !== window.deadReplica);
  expectThat(
    'every replica served before the kill, the two left served after it',
    requests.perReplica.before.every((n) => n > 0) && survivors.every((replica) => requests.perReplica.after[replica]! > 0),
    `answers per replica before ${JSON.stringify(requests.perReplica.before)}, after ${JSON.stringify(requests.perReplica.after)}`,
  );

  // What the database holds.
  const db = new pg.Client({ connectionString: input.databaseUrl });
  await db.connect();
  let users: Array<{ id: number; uuid: string; name: string; is_active: boolean }>;
  let events: Array<{
    id: string;
    type: string;
    user_uuid: string;
    created_at: Date;
    dispatched: boolean;
    status: string | null;
    rows: number;
  }>;
  try {
    users = (await db.query('select id, uuid, name, is_active from users where id = any($1)', [people.map((person) => person.pk)])).rows;
    events = (
      await db.query(
        `select o.id, o.type, o.user_uuid, o.created_at, o.dispatched_at is not null as dispatched,
                min(d.status) as status, count(d.id)::int as rows
           from outbox o left join deliveries d on d.event_id = o.id and d.app = 'scale' where o.type = any($1) group by o.id`,
        [WEBHOOK_EVENTS],
      )
    ).rows;
  } finally {
    await db.end();
  }
  const byPk = new Map(users.map((user) => [user.id, user]));
  const lostWrites = people.filter((person) => {
    const row = byPk.get(person.pk);
    return !row || row.name !== person.expected.name || row.is_active !== person.expected.is_active;
  });
  const acked = people.reduce((sum, person) => sum + person.acked.user_updated + person.acked.user_deactivated, 0);
  expectThat(
    'every acknowledged API write is in the database (each person as their last acknowledged write left them)',
    lostWrites.length === 0,
    lostWrites.length ? show(lostWrites.map((p) => ({ ...p.expected, db: byPk.get(p.pk) }))) : `${acked} writes acknowledged`,
  );
  const eventCount = (person: Person, type: string) => events.filter((e) => e.user_uuid === person.uuid && e.type === type).length;
  const wrongCounts = people.flatMap((person) =>
    (['user_updated', 'user_deactivated'] as const).flatMap((type) => {
      const n = eventCount(person, type);
      return n < person.acked[type] || n > person.sent[type]
        ? [{ person: person.email, type, events: n, acked: person.acked[type], sent: person.sent[type] }]
        : [];
    }),
  );
  expectThat(
    'each acknowledged write emitted its event (per person: acknowledged ≤ events ≤ sent)',
    wrongCounts.length === 0,
    wrongCounts.length ? show(wrongCounts) : `${events.length} events`,
  );
  const undelivered = events.filter((event) => !event.dispatched || event.rows !== 1 || event.status !== 'delivered');
  expectThat(
    `every event was dispatched and delivered, within the ${input.settled.settled ? 'settle time' : 'settle time (it ran out)'}`,
    input.settled.settled && undelivered.length === 0,
    undelivered.length ? show(undelivered) : `settled ${input.settled.seconds} s after the load`,
  );

  // What the receiver got.
  const missing = events.filter((event) => !receipts.at.has(event.id));
  const known = new Set(events.map((event) => event.id));
  const strangers = [...receipts.at.keys()].filter((id) => !known.has(id));
  const wrongType = events.filter((event) => receipts.types.has(event.id) && receipts.types.get(event.id) !== event.type);
  expectThat(
    'the receiver got every event at least once, of its type, signed, and nothing else',
    missing.length + strangers.length + wrongType.length + receipts.badSignatures.length === 0,
    [show(missing), show(strangers), show(wrongType), show(receipts.badSignatures)].filter(Boolean).join('; '),
  );
  const duplicates = [...receipts.at.values()].reduce((sum, times) => sum + times.length - 1, 0);

  const latency = events.flatMap((event) =>
    receipts.at.has(event.id) ? [receipts.at.get(event.id)![0]! - (event.created_at.getTime() - input.t0)] : [],
  );
  // Sent again: a delivery the killed worker had in flight (the receiver got it, its answer was lost) or any other.
  const again = [...receipts.at.values()].filter((times) => times.length > 1);

  // What the processes logged.
  const errors = input.serviceLog.filter((line) => line.level >= 50);
  const warnings = input.serviceLog.filter((line) => line.level < 50 && !line.msg.startsWith('mail.smtp_url is empty'));
  expectThat('no process logged an error', errors.length === 0, errors.length ? show(errors) : '');
  expectThat(
    'no process logged a warning outside the kill window (the start-up notice on mail aside)',
    warnings.every((line) => within(line.at, window.killAt, window.killEnd)),
    warnings.length ? show(warnings) : '',
  );

  return {
    requests,
    tally: clients.tally,
    revoked: clients.revoked.length,
    settleSeconds: input.settled.seconds,
    events: events.length,
    eventsByType: Object.fromEntries(
      ['user_updated', 'user_deactivated'].map((type) => [type, events.filter((e) => e.type === type).length]),
    ),
    received: [...receipts.at.values()].reduce((sum, times) => sum + times.length, 0),
    duplicates,
    deliveryMs: {
      p50: Math.round(percentile(latency, 50)),
      p95: Math.round(percentile(latency, 95)),
      max: Math.round(Math.max(0, ...latency)),
    },
    sentAgain: again.length,
    /** The first and the last repeat after the SIGKILL: when the other worker took over what the killed one held. */
    sentAgainMs: again.length
      ? [Math.min(...again.map((times) => times[1]!)), Math.max(...again.map((times) => times.at(-1)!))].map((t) => t - window.killAt)
      : [],
    warningsInWindow: warnings.length,
  };
}

export type ScaleFigures = Awaited<ReturnType<typeof verify>>;
