/**
 * A replica's store with its read cache in front of the reads every token request makes: tokens, codes and
 * grants and sessions by id, users with their groups by uuid; the tokens, codes and sessions it has just
 * issued are kept as written.
 * Everything else, and everything inside a transaction, reads the database. What keeps the cache true is the
 * database's change notices (migrations 0008 and 0009, src/store/change-feed.ts); these models are the ones its
 * triggers announce (keep the two lists alike). A consume is not announced: a copy that predates one elsewhere
 * still loses the consume in the database (src/oidc/write-batch.ts).
 */
import type { OidcPayload, Store, UserRow } from './contract.js';
import type { Keeping, ReadCache } from './read-cache.js';
import { payloadJson } from './payload-json.js';

export const CACHED_MODELS = new Set(['AccessToken', 'ClientCredentials', 'RefreshToken', 'AuthorizationCode', 'Grant', 'Session']);

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

/** The key a kept engine row lives under; undefined for models the replicas do not keep. */
const keyOf = (model: string, id: string) => (CACHED_MODELS.has(model) ? `p:${model}:${id}` : undefined);
const forget = (cache: ReadCache, key: string | undefined) => key !== undefined && cache.forget(key);

export function withReadCache(store: Store, cache: ReadCache): Store {
  const { oidcPayloads } = store;
  const how = { keeping: payloads, expiresAt: expiryOf };
  return {
    ...store,
    oidcPayloads: {
      ...oidcPayloads,
      // What this replica issues it keeps: the next request with it (UserInfo, the refresh, the code exchange,
      // the next authorization of the session) usually comes back here, and then reads nothing. What it changes it
      // forgets: a later expiry alone is not announced (migration 0009), and this replica must not keep the old one.
      async redeem(consume, rows, now) {
        const redeemed = await oidcPayloads.redeem(consume, rows, now);
        // Consumes are not announced (migration 0009): this replica forgets its own at once.
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
      find: (model, id, now) => {
        const key = keyOf(model, id);
        return key ? cache.read(key, () => oidcPayloads.find(model, id, now), how) : oidcPayloads.find(model, id, now);
      },
    },
    users: {
      ...store.users,
      findByUuidWithGroups: (uuid) => cache.read(`u:${uuid}`, () => store.users.findByUuidWithGroups(uuid), { keeping: users }),
    },
  };
}
