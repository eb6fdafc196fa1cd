/**
 * Saves that change nothing are not written. The engine saves the session again at the end of every request
 * that carries it (its expiry slides) and the grant at every authorization, mostly as they were read: on the
 * single sign-on path those two row updates were most of the database's work. The adapter remembers what a
 * request read of these models and skips a save whose payload is the same but for an expiry moved later by less
 * than a minute: a session's sliding expiry is stored at most that far behind (Keycloak, too, refreshes a
 * session's last access lazily). Anything else that changed is written, and then remembered as stored.
 * Remembered per request on the Koa context, which the engine reaches as `Provider.ctx`.
 */
import { isDeepStrictEqual } from 'node:util';
import Provider from 'oidc-provider';
import { payloadJson } from '../store/payload-json.js';

/** The models the engine saves again unchanged. */
const RESAVED = new Set(['Session', 'Grant']);
/** How far behind a stored expiry may stay. */
const EXPIRY_LAG_SECONDS = 60;

const STORED = Symbol('stored payloads');
type WithStored = { [STORED]?: Map<string, string> };
const keyOf = (model: string, id: string) => `${model}\u0000${id}`;

function storedOf(): Map<string, string> | undefined {
  const state = Provider.ctx?.state as WithStored | undefined;
  return state && (state[STORED] ??= new Map());
}

/** The request read (or wrote) `payload` as the stored row of (model, id). */
export function rememberStored(model: string, id: string, payload: Record<string, unknown>): void {
  if (RESAVED.has(model)) storedOf()?.set(keyOf(model, id), payloadJson(payload));
}

/** Whether saving `payload` would change nothing but an expiry moved later by less than EXPIRY_LAG_SECONDS. */
export function unchangedSave(model: string, id: string, payload: Record<string, unknown>): boolean {
  if (!RESAVED.has(model)) return false;
  const stored = storedOf()?.get(keyOf(model, id));
  if (stored === undefined) return false;
  const { exp: before, ...was } = JSON.parse(stored) as Record<string, unknown>;
  const { exp: after, ...now } = JSON.parse(payloadJson(payload)) as Record<string, unknown>;
  const moved = Number(after) - Number(before);
  return moved >= 0 && moved < EXPIRY_LAG_SECONDS && isDeepStrictEqual(was, now);
}
