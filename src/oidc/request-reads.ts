/**
 * Rows a request has read already, handed to the engine's adapter instead of a second query. UserInfo needs its
 * access token's client to pick the provider, then the engine looks the same token up: with this, once. Each
 * remembered row is used once (the next find reads the database again), and only within its request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { OidcPayload } from '../store/contract.js';

const reads = new AsyncLocalStorage<Map<string, OidcPayload>>();
const keyOf = (model: string, id: string) => `${model}\u0000${id}`;

/** Runs `work` with `row` remembered for the adapter's next find of (model, id). */
export const withRead = <T>(model: string, id: string, row: OidcPayload, work: () => Promise<T>): Promise<T> =>
  reads.run(new Map([[keyOf(model, id), row]]), work);

/** The remembered row of (model, id), once; undefined when this request has none. */
export function recall(model: string, id: string): OidcPayload | undefined {
  const remembered = reads.getStore();
  const key = keyOf(model, id);
  const row = remembered?.get(key);
  if (row) remembered!.delete(key);
  return row;
}
