/**
 * The oidc-provider adapter over the store: a thin translation of the engine's calls to the request's unit of work
 * (unit-of-work.ts), which decides what is read, noted, skipped or written. Every application's provider shares
 * it, so sessions, grants and tokens live in one table (SSO across applications; any replica can answer).
 */
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { OidcPayload, Store } from '../../store/contract.js';
import { inputProblem } from '../../domain/input-text.js';
import { forEngine } from '../engine-unavailable.js';
import { EXPIRED_ROWS_KEPT_SECONDS, hasTrait } from '../../store/oidc-models.js';
import { unitOfWorkOf, type Row } from './unit-of-work.js';

export function adapterFactory(store: Store): (model: string) => Adapter {
  const work = () => unitOfWorkOf(store);
  return (model) => ({
    upsert: (id, payload, expiresIn) =>
      forEngine(async () => {
        // Last line of defence: whatever parameter carried it, text PostgreSQL cannot hold is the client's error.
        if (inputProblem(payload)) throw new errors.InvalidRequest('a parameter contains characters that are not allowed');
        await work().save(rowOf(model, id, payload, expiresIn));
      }),
    find: (id) => forEngine(async () => toPayload(await work().find(model, id))),
    findByUid: (uid) => forEngine(async () => toPayload(await work().findByUid(model, uid))),
    findByUserCode: (userCode) => forEngine(async () => toPayload(await work().findByUserCode(model, userCode))),
    consume: (id) => forEngine(() => work().consume(model, id)),
    destroy: (id) => forEngine(() => work().destroy(model, id)),
    revokeByGrantId: (grantId) => forEngine(() => work().revokeByGrantId(grantId)),
  });
}

function rowOf(model: string, id: string, payload: AdapterPayload, expiresIn: number | undefined): Row {
  const kept = hasTrait(model, 'toldExpired') ? EXPIRED_ROWS_KEPT_SECONDS * 1000 : 0;
  return {
    model,
    id,
    payload: payload as Record<string, unknown>,
    grant_id: payload.grantId ?? null,
    user_code: payload.userCode ?? null,
    uid: payload.uid ?? null,
    account_id: payload.accountId ?? null,
    client_id: payload.clientId ?? null,
    // The payload's own expiry (whole seconds) where it has one: a grant saved again without a new expiry keeps
    // the same column, and so makes no change notice (migration 0009).
    // A toldExpired model's row is kept a while past it, so the engine can say "expired" (oidc-models.ts).
    expires_at:
      typeof payload.exp === 'number'
        ? new Date(payload.exp * 1000 + kept)
        : expiresIn
          ? new Date(Date.now() + expiresIn * 1000 + kept)
          : null,
  };
}

function toPayload(row: OidcPayload | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = row.payload as AdapterPayload;
  // The engine reads `consumed` to detect reuse (and then revokes the grant).
  return row.consumed_at ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : payload;
}
