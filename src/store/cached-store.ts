/**
 * A replica's store with its read cache in front of the reads every token request makes: access tokens, grants
 * and client-credentials tokens by id, users with their groups by uuid. Everything else, and everything inside a
 * transaction, reads the database. What keeps the cache true is the database's change notices (migration 0008,
 * src/store/change-feed.ts); these models are the ones its trigger announces.
 */
import type { OidcPayload, Store } from './contract.js';
import type { ReadCache } from './read-cache.js';

export const CACHED_MODELS = new Set(['AccessToken', 'ClientCredentials', 'Grant']);

const expiryOf = (row: OidcPayload) => row.expires_at?.getTime();

export function withReadCache(store: Store, cache: ReadCache): Store {
  const { oidcPayloads, users } = store;
  return {
    ...store,
    oidcPayloads: {
      ...oidcPayloads,
      find: (model, id, now) => (CACHED_MODELS.has(model)
        ? cache.read(`p:${model}:${id}`, () => oidcPayloads.find(model, id, now), expiryOf)
        : oidcPayloads.find(model, id, now)),
    },
    users: {
      ...users,
      findByUuidWithGroups: (uuid) => cache.read(`u:${uuid}`, () => users.findByUuidWithGroups(uuid)),
    },
  };
}
