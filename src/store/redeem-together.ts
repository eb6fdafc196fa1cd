/**
 * The token requests' writes (OidcPayloadsRepository.redeem), the redeems of one moment in one statement: each
 * consumes its code or refresh token and, only when that consume wins, upserts its rows. On the token paths a
 * statement's round trip and commit cost more than its rows, so the requests answered in the same turn of the
 * event loop share them (src/batch-calls.ts). Redeems that touch the same row go in the next statement, in
 * their order: PostgreSQL cannot change one row twice in a statement.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { OidcPayload, Redeemed } from './contract.js';
import type { Tables } from './tables.js';
import { prepareStatement } from './prepared-statements.js';
import { payloadJson } from './payload-json.js';
import { rowKey } from './oidc-models.js';

type Row = Omit<OidcPayload, 'consumed_at'>;

export interface RedeemCall {
  consume?: { model: string; id: string };
  rows: Row[];
  now: Date;
}

const keyOf = ({ model, id }: { model: string; id: string }) => rowKey(model, id);
const keysOf = (call: RedeemCall) => [...(call.consume ? [call.consume] : []), ...call.rows].map(keyOf);

/** Consecutive runs of calls that touch no row in common. */
function disjointRuns(calls: RedeemCall[]): RedeemCall[][] {
  const runs: RedeemCall[][] = [];
  let run: RedeemCall[] = [];
  let touched = new Set<string>();
  for (const call of calls) {
    const keys = keysOf(call);
    if (keys.some((key) => touched.has(key))) {
      runs.push(run);
      run = [];
      touched = new Set();
    }
    run.push(call);
    keys.forEach((key) => touched.add(key));
  }
  return [...runs, run];
}

/** The shape of a run: whether each call consumes, and how many rows it writes. The same shape is the same text. */
const shapeOf = (calls: RedeemCall[]) => calls.map((call) => `${call.consume ? 'c' : ''}${call.rows.length}`).join(',');

/** The statement's text for a shape, written once: the text is also how its prepared statement is found. */
function textOf(calls: RedeemCall[]): string {
  let n = 0;
  const $ = () => `$${++n}`;
  const consumes: string[] = [];
  const rows: string[] = [];
  const written: string[] = [];
  calls.forEach((call, k) => {
    if (call.consume) {
      consumes.push(`c${k} as (update oidc_payloads set consumed_at = ${$()}::timestamptz
        where model = ${$()} and id = ${$()} and consumed_at is null returning 1)`);
    }
    for (let r = 0; r < call.rows.length; r += 1) {
      rows.push(`(${k}, ${$()}, ${$()}, ${$()}::jsonb, ${$()}, ${$()}, ${$()}, ${$()}, ${$()}, ${$()}::timestamptz)`);
    }
    written.push(call.consume ? `(k = ${k} and exists (select from c${k}))` : `k = ${k}`);
  });
  // xmax is 0 on a row this statement inserted (an upsert that updated one has its own transaction id there).
  return `${consumes.length ? `with ${consumes.join(', ')}` : ''}
    insert into oidc_payloads (model, id, payload, grant_id, user_code, uid, account_id, client_id, expires_at)
    select model, id, payload, grant_id, user_code, uid, account_id, client_id, expires_at
    from (values ${rows.join(', ')}) as v (k, model, id, payload, grant_id, user_code, uid, account_id, client_id, expires_at)
    where ${written.join(' or ')}
    on conflict (model, id) do update set payload = excluded.payload, grant_id = excluded.grant_id, user_code = excluded.user_code,
      uid = excluded.uid, account_id = excluded.account_id, client_id = excluded.client_id, expires_at = excluded.expires_at
    returning model, id, (xmax = 0) as inserted`;
}

/** The values in the text's order. */
function valuesOf(calls: RedeemCall[]): unknown[] {
  const values: unknown[] = [];
  for (const call of calls) {
    if (call.consume) values.push(call.now, call.consume.model, call.consume.id);
    for (const row of call.rows) {
      values.push(
        row.model,
        row.id,
        payloadJson(row.payload),
        row.grant_id,
        row.user_code,
        row.uid,
        row.account_id,
        row.client_id,
        row.expires_at,
      );
    }
  }
  return values;
}

/** Texts by shape; a bound, since a shape seen once in a burst need not stay. */
const texts = new Map<string, string>();
const MAX_TEXTS = 256;

/** The statement's text and values: Kysely's template builder cost more per call than the write. */
function statementOf(calls: RedeemCall[]): { text: string; values: unknown[] } {
  const shape = shapeOf(calls);
  let text = texts.get(shape);
  if (text === undefined) {
    text = textOf(calls);
    if (texts.size < MAX_TEXTS) texts.set(shape, text);
  }
  return { text, values: valuesOf(calls) };
}

async function redeemRun(db: Kysely<Tables>, calls: RedeemCall[]): Promise<Redeemed[]> {
  // The same kinds of calls in any order make the same statement: it is prepared once (prepared-statements.ts).
  const ordered = [...calls].sort((a, b) => Number(!!a.consume) - Number(!!b.consume) || a.rows.length - b.rows.length);
  const { text, values } = statementOf(ordered);
  if (calls.length <= 8 && calls.every((call) => call.rows.length <= 4)) prepareStatement(text);
  const { rows } = await db.executeQuery<{ model: string; id: string; inserted: boolean }>(CompiledQuery.raw(text, values));
  const returned = new Map(rows.map((row) => [keyOf(row), row.inserted]));
  return calls.map((call) => ({
    // A call's rows are written exactly when its consume won (or it had none).
    won: call.rows.some((row) => returned.has(keyOf(row))),
    inserted: call.rows.filter((row) => returned.get(keyOf(row))).map(({ model, id }) => ({ model, id })),
  }));
}

/** Runs the calls (each with at least one row) in as few statements as their rows allow; answers in their order. */
export async function redeemTogether(db: Kysely<Tables>, calls: RedeemCall[]): Promise<Redeemed[]> {
  const answers: Redeemed[] = [];
  for (const run of disjointRuns(calls)) answers.push(...(await redeemRun(db, run)));
  return answers;
}
