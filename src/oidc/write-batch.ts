/**
 * The writes of a token or authorization request, made at once. Redeeming a code or a refresh token, the engine
 * consumes it, then saves the new tokens: three statements and three commits; an authorization saves the grant,
 * the code and the session. In a request with an open batch the adapter only notes them (the engine reads back
 * what it noted), and `commitWriteBatch` writes them in one statement once the engine has answered, before the
 * answer leaves: the consume still decides (nothing is written when it lost), and a token or code the client
 * receives is always stored. Any other write the engine makes mid-request sends what is noted first, so the
 * database sees the engine's writes in its order. The batch lives on the request's Koa context, which the
 * adapter reaches through the engine (`Provider.ctx`).
 */
import Provider, { errors } from 'oidc-provider';
import type { Context } from 'koa';
import type { OidcPayload, Store } from '../store/contract.js';

type Row = Omit<OidcPayload, 'consumed_at'>;

/** What those requests write: nothing another request reads before the answer has left. */
export const BATCHED_MODELS = new Set(['AccessToken', 'RefreshToken', 'ClientCredentials', 'AuthorizationCode', 'Grant', 'Session']);

interface Batch {
  consume?: { model: string; id: string };
  rows: Map<string, Row>;
}

const BATCH = Symbol('write batch');
const keyOf = (model: string, id: string) => `${model}\u0000${id}`;
type WithBatch = { [BATCH]?: Batch };

const batchOf = (ctx: Context | undefined) => (ctx?.state as WithBatch | undefined)?.[BATCH];

/** From now on, this request's token writes are noted, to be committed (or discarded) once the engine answered. */
export function openWriteBatch(ctx: Context): void {
  (ctx.state as WithBatch)[BATCH] = { rows: new Map() };
}

/** Notes the upsert when a batch is open and the model is batched; false: write it now. */
export function noteUpsert(row: Row): boolean {
  const batch = batchOf(Provider.ctx);
  if (!batch || !BATCHED_MODELS.has(row.model)) return false;
  batch.rows.set(keyOf(row.model, row.id), row);
  return true;
}

/** Notes the request's (first) consume when a batch is open; false: consume it now. */
export function noteConsume(model: string, id: string): boolean {
  const batch = batchOf(Provider.ctx);
  if (!batch || batch.consume) return false;
  batch.consume = { model, id };
  return true;
}

/** A row this request has noted and not yet written. */
export function notedRow(model: string, id: string): Row | undefined {
  return batchOf(Provider.ctx)?.rows.get(keyOf(model, id));
}

/**
 * Writes what is noted (one statement). A lost consume writes nothing and is the engine's invalid_grant; and as
 * the engine does when it finds a code or refresh token already used, the grant is revoked with its tokens: a
 * replica that answered from a copy older than the consume (consumes are not announced, migration 0009) learns
 * of the reuse here.
 */
export async function commitWriteBatch(store: Store, ctx: Context | undefined = Provider.ctx): Promise<void> {
  const batch = batchOf(ctx);
  if (!batch || (!batch.consume && !batch.rows.size)) return;
  const { consume, rows } = batch;
  batch.consume = undefined;
  batch.rows = new Map();
  const issued = [...rows.values()];
  if ((await store.oidcPayloads.redeem(consume, issued, new Date())).won) return;
  const grantId = issued.find((row) => row.grant_id)?.grant_id;
  if (grantId) {
    await store.oidcPayloads.revokeByGrantId(grantId);
    await store.oidcPayloads.destroy('Grant', grantId);
  }
  throw new errors.InvalidGrant('grant already used');
}

/** Forgets what is noted: the engine refused the request, so nothing it noted was issued. */
export function discardWriteBatch(ctx: Context): void {
  const batch = batchOf(ctx);
  if (!batch) return;
  batch.consume = undefined;
  batch.rows.clear();
}
