/**
 * The oidc-provider adapter over the store. Every application's provider shares it, so sessions,
 * grants and tokens live in one table (SSO across applications; any replica can answer).
 */
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Store } from '../store/contract.js';
import { inputProblem } from '../domain/input-text.js';
import { forEngine } from './engine-unavailable.js';
import { recall } from './request-reads.js';
import { commitWriteBatch, noteConsume, notedRow, noteUpsert } from './write-batch.js';
import { rememberStored, unchangedSave } from './unchanged-saves.js';

/** Models that are redeemed once: losing the consume race must fail the request, not issue tokens twice. */
const SINGLE_USE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

export function adapterFactory(store: Store): (model: string) => Adapter {
  return (model) => ({
    upsert: (id, payload, expiresIn) =>
      forEngine(async () => {
        // Last line of defence: whatever parameter carried it, text PostgreSQL cannot hold is the client's error.
        if (inputProblem(payload)) throw new errors.InvalidRequest('a parameter contains characters that are not allowed');
        const row = {
          model,
          id,
          payload: payload as Record<string, unknown>,
          grant_id: payload.grantId ?? null,
          user_code: payload.userCode ?? null,
          uid: payload.uid ?? null,
          account_id: payload.accountId ?? null,
          client_id: payload.clientId ?? null,
          // The payload's own expiry (whole seconds) where it has one: a grant saved again without a new expiry
          // keeps the same column, and so makes no change notice (migration 0009).
          expires_at:
            typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
        };
        if (unchangedSave(model, id, row.payload)) return; // the session's sliding expiry, a grant as it was read
        rememberStored(model, id, row.payload);
        if (noteUpsert(row)) return; // the token endpoint writes it with the rest of its answer (write-batch.ts)
        await commitWriteBatch(store);
        await store.oidcPayloads.upsert(row);
      }),

    find: (id) =>
      forEngine(async () => {
        const noted = notedRow(model, id);
        if (noted) return toPayload({ ...noted, consumed_at: null });
        return toPayload(stored(recall(model, id) ?? (await store.oidcPayloads.find(model, id, new Date()))));
      }),
    findByUid: (uid) => forEngine(async () => toPayload(stored(await store.oidcPayloads.findByUid(model, uid, new Date())))),
    findByUserCode: (userCode) => forEngine(async () => toPayload(await store.oidcPayloads.findByUserCode(model, userCode, new Date()))),

    consume: (id) =>
      forEngine(async () => {
        if (SINGLE_USE.has(model) && noteConsume(model, id)) return;
        await commitWriteBatch(store);
        const won = await store.oidcPayloads.consume(model, id, new Date());
        if (!won && SINGLE_USE.has(model)) throw new errors.InvalidGrant('grant already used');
      }),

    destroy: (id) =>
      forEngine(async () => {
        await commitWriteBatch(store);
        await store.oidcPayloads.destroy(model, id);
      }),
    revokeByGrantId: (grantId) =>
      forEngine(async () => {
        await commitWriteBatch(store);
        await store.oidcPayloads.revokeByGrantId(grantId);
      }),
  });
}

/** A row as read from the store: remembered, so saving it back unchanged writes nothing (unchanged-saves.ts). */
function stored<T extends { model: string; id: string; payload: Record<string, unknown> } | undefined>(row: T): T {
  if (row) rememberStored(row.model, row.id, row.payload);
  return row;
}

function toPayload(row: { payload: Record<string, unknown>; consumed_at: Date | null } | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = row.payload as AdapterPayload;
  // The engine reads `consumed` to detect reuse (and then revokes the grant).
  return row.consumed_at ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : payload;
}
