/**
 * Saves that change nothing are not written. The engine saves the session again at the end of every request that
 * carries it (its expiry slides) and the grant at every authorization, mostly as they were read: on the single
 * sign-on path those two row updates were most of the database's work. A save is skipped when its payload is the
 * stored one but for an expiry moved later by less than a minute: a session's sliding expiry is stored at most
 * that far behind (Keycloak, too, refreshes a session's last access lazily). Which models the engine saves again
 * is a trait of the model (oidc-models.ts, `resaved`); the unit of work keeps what each request read.
 */
import { isDeepStrictEqual } from 'node:util';
import { payloadJson } from '../../store/payload-json.js';

/** How far behind a stored expiry may stay. */
const EXPIRY_LAG_SECONDS = 60;

/** Whether saving `payload` over the stored JSON would change nothing but an expiry moved later by less than a minute. */
export function changesNothing(storedJson: string, payload: Record<string, unknown>): boolean {
  const { exp: before, ...was } = JSON.parse(storedJson) as Record<string, unknown>;
  const { exp: after, ...now } = JSON.parse(payloadJson(payload)) as Record<string, unknown>;
  const moved = Number(after) - Number(before);
  return moved >= 0 && moved < EXPIRY_LAG_SECONDS && isDeepStrictEqual(was, now);
}
