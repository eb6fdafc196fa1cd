/**
 * A replica's cache of rows the token paths read on every request (access tokens, grants, users with their
 * groups). It is only trusted while the database's change notices reach it (src/store/change-feed.ts): when the
 * feed is down it answers nothing from memory and keeps nothing. Before it answers from memory it waits for the
 * feed's fence, so no change committed before the read is missed. A read that raced a notice for its key is not
 * kept (the row it brought may predate the change). Entries also end at their own expiry, or after `maxAgeMs`
 * as a backstop; the oldest entries make room when it is full. What is kept is a `Keeping`'s stored form, and each
 * caller gets a value of its own from it: the engine changes the objects it reads (a grant before it saves it),
 * and that must never reach the next request.
 */

/** How a value is kept and given back (default: as it is — only for values nobody changes). */
export interface Keeping<T> {
  keep(value: T): unknown;
  give(kept: unknown): T;
}

const asItIs: Keeping<any> = { keep: (value) => value, give: (kept) => kept };
export interface ReadCache {
  /** The cached value of `key`, or `load()`'s answer (kept when it is defined and no notice raced it). */
  read<T>(
    key: string,
    load: () => Promise<T | undefined>,
    how?: { keeping?: Keeping<T>; expiresAt?: (value: T) => number | undefined },
  ): Promise<T | undefined>;
  /**
   * Keeps `value` under `key` without reading it: a row this replica has just created, which nobody else knew
   * before its creation committed (the notice of any later change forgets it, as for any entry).
   */
  keepCreated<T>(key: string, value: T, how?: { keeping?: Keeping<T>; expiresAt?: (value: T) => number | undefined }): void;
  /** A change notice: forget `key`. */
  forget(key: string): void;
  /** Forget every key starting with `prefix` ('' for all). */
  forgetAll(prefix?: string): void;
  /** The feed is listening (true) or lost (false): both forget everything. */
  setLive(live: boolean): void;
  readonly live: boolean;
  readonly size: number;
}

interface Entry {
  value: unknown;
  expiresAt: number;
}

/** A read in flight: a notice for its key (or for all) marks it stale. */
interface Ticket {
  stale: boolean;
}

export interface ReadCacheOptions {
  maxEntries: number;
  maxAgeMs: number;
  /** Resolves once every change committed before the call is known here (change-feed.ts); awaited before a hit is answered. */
  fence?: () => Promise<void>;
}

export function createReadCache(options: ReadCacheOptions): ReadCache {
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Set<Ticket>>();
  let live = false;

  function spoil(key: string) {
    for (const ticket of inFlight.get(key) ?? []) ticket.stale = true;
  }
  function forgetAll(prefix = '') {
    for (const key of entries.keys()) if (key.startsWith(prefix)) entries.delete(key);
    for (const [key, tickets] of inFlight) if (key.startsWith(prefix)) for (const ticket of tickets) ticket.stale = true;
  }

  return {
    get live() {
      return live;
    },
    get size() {
      return entries.size;
    },

    async read<T>(
      key: string,
      load: () => Promise<T | undefined>,
      how: { keeping?: Keeping<T>; expiresAt?: (value: T) => number | undefined } = {},
    ) {
      const keeping = how.keeping ?? asItIs;
      if (!live || options.maxEntries === 0) return load();
      const hit = entries.get(key);
      if (hit && hit.expiresAt > Date.now()) {
        // A change committed before this read must be known before memory answers: then the entry must still be there.
        const fenced = await (options.fence?.() ?? Promise.resolve()).then(
          () => true,
          () => false,
        );
        if (fenced && live && entries.get(key) === hit) return keeping.give(hit.value);
      } else if (hit) {
        entries.delete(key);
      }

      const ticket: Ticket = { stale: false };
      const tickets = inFlight.get(key) ?? new Set<Ticket>();
      inFlight.set(key, tickets.add(ticket));
      let value: T | undefined;
      try {
        value = await load();
      } finally {
        tickets.delete(ticket);
        if (!tickets.size) inFlight.delete(key);
      }
      if (value === undefined || ticket.stale || !live) return value;
      const until = Math.min(how.expiresAt?.(value) ?? Infinity, Date.now() + options.maxAgeMs);
      if (until <= Date.now()) return value;
      if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value: keeping.keep(value), expiresAt: until });
      return value;
    },

    keepCreated<T>(key: string, value: T, how: { keeping?: Keeping<T>; expiresAt?: (value: T) => number | undefined } = {}) {
      if (!live || options.maxEntries === 0 || inFlight.has(key)) return;
      const until = Math.min(how.expiresAt?.(value) ?? Infinity, Date.now() + options.maxAgeMs);
      if (until <= Date.now()) return;
      if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value: (how.keeping ?? asItIs).keep(value), expiresAt: until });
    },

    forget(key) {
      entries.delete(key);
      spoil(key);
    },
    forgetAll,

    setLive(next) {
      forgetAll();
      live = next;
    },
  };
}
