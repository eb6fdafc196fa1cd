/**
 * The replica cache, as the composition root wires it: a serving process keeps the rows of the token paths in
 * memory (replica-store.ts, read-cache.ts) and follows the database's change notices (../change-feed.ts) to stay
 * exactly as current as the database. docs/architecture.md, "The token paths", tells why each rule holds.
 */
import type { Logger } from 'pino';
import type { Store } from '../contract.js';
import type { Database } from '../database.js';
import { EVERY_USER, userNotice, type Listening, type NoticeListener } from '../change-feed.js';
import { createReadCache, type ReadCache } from './read-cache.js';
import { replicaStore } from './replica-store.js';

/** A kept row is read again after this long at the latest, whatever its expiry (a backstop, not a rule). */
const MAX_AGE_MS = 10 * 60_000;

export interface Replica {
  store: Store;
  /** The cache, for metrics; undefined when the store is not cached. */
  cache?: ReadCache;
  stop(): Promise<void>;
}

/**
 * `store` with the replica cache in front, when `database` can announce its changes and `maxEntries` > 0; else
 * `store` as it is. `since` tells when the current request started (the fence waits for the changes committed
 * before it).
 */
export function withReplicaCache(
  store: Store,
  database: Pick<Database, 'listen'> | undefined,
  options: { maxEntries: number; logger: Logger; since?: () => number | undefined },
): Replica {
  if (!database?.listen || options.maxEntries === 0) return { store, stop: async () => {} };
  let listening: Listening | undefined;
  // A request's hits need only the changes committed before it arrived: one fence serves all of them.
  const cache = createReadCache({
    maxEntries: options.maxEntries,
    maxAgeMs: MAX_AGE_MS,
    fence: () => listening!.fence(options.since?.()),
  });
  listening = database.listen(followChanges(cache, options.logger));
  return { store: replicaStore(store, cache), cache, stop: listening.stop };
}

/** Applies notices to the cache: an engine row's or a user's key, or every user. */
export function followChanges(cache: ReadCache, logger: Logger): NoticeListener {
  let wasDown = false;
  return {
    notice(payload) {
      if (payload === EVERY_USER) cache.forgetAll(userNotice(''));
      else cache.forget(payload);
    },
    up() {
      cache.setLive(true);
      if (wasDown) logger.info({ component: 'read-cache' }, 'change notices are back: the read cache is on again');
      wasDown = false;
    },
    down(error) {
      cache.setLive(false);
      if (!wasDown)
        logger.warn({ component: 'read-cache', err: error }, 'change notices lost: token paths read the database until they are back');
      wasDown = true;
    },
  };
}
