/**
 * Blocks every replica hears of the moment one of them sets one, so checking a counter that is rarely over its
 * limit costs no Redis round trip. The replica whose failure uses up a limit publishes the block (Redis pub/sub);
 * every replica keeps the blocks it heard in memory. What it cannot vouch for it does not answer: once subscribed
 * (after starting, after a lost connection) it reads the blocks already in force (`inForce`), and only then
 * vouches; when that read fails, blocks set before could be unknown to it until it has listened for a whole
 * window, and meanwhile the caller asks Redis, as without this.
 */
import type { Redis } from 'ioredis';

export interface SharedBlocks {
  /** Milliseconds left of a block on `key` (0: none); undefined when this replica cannot vouch: ask Redis. */
  remainingMs(key: string): number | undefined;
  /** Blocks `key` for `ms` on every replica. */
  announce(key: string, ms: number): void;
  close(): void;
}

/** The blocks in force now, as [key, when it ends in ms since the epoch]. */
export type BlocksInForce = () => Promise<Array<[string, number]>>;

export function sharedBlocks(redis: Redis, channel: string, windowMs: number, inForce?: BlocksInForce): SharedBlocks {
  const blocked = new Map<string, number>();
  /** Since when every block is known: -Infinity once those in force were read, Infinity while not subscribed. */
  let subscribedAt = Infinity;
  /** Counts connections: what one started and finishes after it closed must not vouch for the next. */
  let connection = 0;
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  subscriber.on('error', () => {}); // it reconnects; meanwhile checks ask Redis
  subscriber.on('close', () => {
    connection += 1;
    subscribedAt = Infinity;
  });
  subscriber.on('ready', () => {
    const current = (connection += 1);
    const stillCurrent = () => current === connection;
    subscriber
      .subscribe(channel)
      .then(async () => {
        if (!stillCurrent()) return;
        subscribedAt = Date.now(); // without the read below, it vouches a whole window from now
        // Subscribed first: a block set while they are read is heard, one set before is read.
        const known = await inForce?.().catch(() => undefined);
        if (!known || !stillCurrent()) return;
        for (const [key, until] of known) blockUntil(key, until);
        subscribedAt = -Infinity;
      })
      .catch(() => {});
  });
  subscriber.on('message', (_channel: string, message: string) => {
    const { key, ms } = JSON.parse(message) as { key: string; ms: number };
    blockUntil(key, Date.now() + ms);
  });

  function blockUntil(key: string, until: number) {
    if ((blocked.get(key) ?? 0) < until) blocked.set(key, until);
    if (blocked.size > 10_000) for (const [name, end] of blocked) if (end <= Date.now()) blocked.delete(name);
  }

  return {
    remainingMs(key) {
      if (Date.now() - subscribedAt < windowMs) return undefined;
      const until = blocked.get(key);
      if (until === undefined) return 0;
      if (until > Date.now()) return until - Date.now();
      blocked.delete(key);
      return 0;
    },
    announce(key, ms) {
      blockUntil(key, Date.now() + ms);
      redis.publish(channel, JSON.stringify({ key, ms })).catch(() => {});
    },
    close() {
      subscriber.disconnect();
    },
  };
}
