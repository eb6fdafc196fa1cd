/**
 * A serving process's store: the bare store with the read cache (read-cache.ts) in front of the reads every token
 * request makes — engine rows by id, users with their groups by uuid — and the rows it has just issued kept as
 * written. Everything else, and everything inside a transaction, reads the database.
 *
 * What keeps a kept row true is the database's change notices (change-feed.ts): every change of a cached model
 * (oidc-models.ts) is announced but two, which cannot mislead:
 * - a later expiry and nothing else: a copy that predates it ends sooner, and is read again then;
 * - a consume. A single-use row (a code, a refresh token) answers its consumption itself: `find` asks the
 *   database, always; only `findToRedeem` — a caller that will redeem the row, where the consume decides in the
 *   database — may be answered from a copy made before a consume at another replica.
 */
import type { OidcPayload, Store, UserRow } from '../contract.js';
import { payloadNotice, userNotice } from '../change-feed.js';
import { hasTrait } from '../oidc-models.js';
import { payloadJson } from '../payload-json.js';
import type { Keeping, ReadCache } from './read-cache.js';

const expiryOf = (row: OidcPayload) => row.expires_at?.getTime();

/** The engine changes the payloads it reads: each reader gets its own, parsed from the kept JSON. */
const payloads: Keeping<OidcPayload> = {
  keep: (row) => ({ row: { ...row, payload: undefined }, json: payloadJson(row.payload) }),
  give: (kept) => {
    const { row, json } = kept as { row: OidcPayload; json: string };
    return { ...row, payload: JSON.parse(json) };
  },
};

type UserWithGroups = { user: UserRow; groups: string[] };

/** Users are only read: kept frozen and shared, so a change anywhere would fail loudly instead of leaking. */
const users: Keeping<UserWithGroups> = {
  keep: ({ user, groups }) =>
    Object.freeze({
      user: Object.freeze({ ...user, attributes: Object.freeze(structuredClone(user.attributes)) }),
      groups: Object.freeze([...groups]),
    }),
  give: (kept) => kept as UserWithGroups,
};

/** The cache key of an engine row: the notice that announces its changes; undefined for models no replica keeps. */
const keyOf = (model: string, id: string) => (hasTrait(model, 'cached') ? payloadNotice(model, id) : undefined);

/** A kept row is answered only while it is alive at the caller's `now` (the bare store's rule). */
const aliveAt = (now: Date) => (row: OidcPayload | undefined) => (row && row.expires_at && row.expires_at <= now ? undefined : row);

export function replicaStore(store: Store, cache: ReadCache): Store {
  const { oidcPayloads } = store;
  const how = { keeping: payloads, expiresAt: expiryOf };
  const kept = (model: string, id: string, now: Date) => {
    const key = keyOf(model, id);
    return key ? cache.read(key, () => oidcPayloads.find(model, id, now), how).then(aliveAt(now)) : oidcPayloads.find(model, id, now);
  };
  return {
    ...store,
    oidcPayloads: {
      ...oidcPayloads,
      find: (model, id, now) => (hasTrait(model, 'singleUse') ? oidcPayloads.find(model, id, now) : kept(model, id, now)),
      findToRedeem: kept,
      // What this replica issues it keeps: the next request with it (UserInfo, the refresh, the code exchange, the
      // next authorization of the session) usually comes back here, and then reads nothing. What it changes it
      // forgets at once: a later expiry alone is not announced, and this replica must not keep the old one.
      async redeem(consume, rows, now) {
        const redeemed = await oidcPayloads.redeem(consume, rows, now);
        if (consume) forget(cache, keyOf(consume.model, consume.id));
        const created = new Set(redeemed.inserted.map(({ model, id }) => keyOf(model, id)));
        for (const row of rows) {
          const key = keyOf(row.model, row.id);
          if (!key) continue;
          if (created.has(key)) cache.keepCreated(key, { ...row, consumed_at: null }, how);
          else cache.forget(key);
        }
        return redeemed;
      },
      async upsert(row) {
        await oidcPayloads.upsert(row);
        forget(cache, keyOf(row.model, row.id));
      },
      async consume(model, id, now) {
        const won = await oidcPayloads.consume(model, id, now);
        forget(cache, keyOf(model, id));
        return won;
      },
    },
    users: {
      ...store.users,
      findByUuidWithGroups: (uuid) => cache.read(userNotice(uuid), () => store.users.findByUuidWithGroups(uuid), { keeping: users }),
    },
  };
}

const forget = (cache: ReadCache, key: string | undefined) => key !== undefined && cache.forget(key);
