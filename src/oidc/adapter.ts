/**
 * The oidc-provider adapter over the store. Every application's provider shares it, so sessions,
 * grants and tokens live in one table (SSO across applications; any replica can answer).
 */
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Store } from '../store/contract.js';
import { inputProblem } from '../domain/input-text.js';
import { forEngine } from './engine-unavailable.js';
import { recall } from './request-reads.js';

/** Models that are redeemed once: losing the consume race must fail the request, not issue tokens twice. */
const SINGLE_USE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

export function adapterFactory(store: Store): (model: string) => Adapter {
  return (model) => ({
    upsert: (id, payload, expiresIn) => forEngine(async () => {
      // Last line of defence: whatever parameter carried it, text PostgreSQL cannot hold is the client's error.
      if (inputProblem(payload)) throw new errors.InvalidRequest('a parameter contains characters that are not allowed');
      await store.oidcPayloads.upsert({
        model,
        id,
        payload: payload as Record<string, unknown>,
        grant_id: payload.grantId ?? null,
        user_code: payload.userCode ?? null,
        uid: payload.uid ?? null,
        account_id: payload.accountId ?? null,
        client_id: payload.clientId ?? null,
        expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      });
    }),

    find: (id) => forEngine(async () => toPayload(recall(model, id) ?? await store.oidcPayloads.find(model, id, new Date()))),
    findByUid: (uid) => forEngine(async () => toPayload(await store.oidcPayloads.findByUid(model, uid, new Date()))),
    findByUserCode: (userCode) => forEngine(async () => toPayload(await store.oidcPayloads.findByUserCode(model, userCode, new Date()))),

    consume: (id) => forEngine(async () => {
      const won = await store.oidcPayloads.consume(model, id, new Date());
      if (!won && SINGLE_USE.has(model)) throw new errors.InvalidGrant('grant already used');
    }),

    destroy: (id) => forEngine(() => store.oidcPayloads.destroy(model, id)),
    revokeByGrantId: (grantId) => forEngine(() => store.oidcPayloads.revokeByGrantId(grantId)),
  });
}

function toPayload(row: { payload: Record<string, unknown>; consumed_at: Date | null } | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = row.payload as AdapterPayload;
  // The engine reads `consumed` to detect reuse (and then revokes the grant).
  return row.consumed_at ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : payload;
}
