/**
 * Rows a request has read already, handed to the engine's adapter instead of a second query. UserInfo needs its
 * access token's client to pick the provider, then the engine looks the same token up: with this, once. Each
 * remembered row is used once (the next find reads the database again), and only within its request. They live
 * on the request's Koa context, which the engine makes reachable from its adapter (`Provider.ctx`): no
 * AsyncLocalStorage of our own, whose hooks every promise of the request would pay for.
 */
import Provider from 'oidc-provider';
import type { Context } from 'koa';
import type { OidcPayload } from '../store/contract.js';

const READS = Symbol('request reads');
const keyOf = (model: string, id: string) => `${model}\u0000${id}`;
type WithReads = { [READS]?: Map<string, OidcPayload> };

/** Remembers `row` for the adapter's next find of (model, id) in this request. */
export function rememberRead(ctx: Context, model: string, id: string, row: OidcPayload): void {
  const state = ctx.state as WithReads;
  (state[READS] ??= new Map()).set(keyOf(model, id), row);
}

/** The remembered row of (model, id), once; undefined outside a request or when it has none. */
export function recall(model: string, id: string): OidcPayload | undefined {
  const remembered = (Provider.ctx?.state as WithReads | undefined)?.[READS];
  const key = keyOf(model, id);
  const row = remembered?.get(key);
  if (row) remembered!.delete(key);
  return row;
}
