/**
 * Client-authentication blocks announced to every replica (src/domain/shared-blocks.ts), on real Redis: what one
 * replica blocks, another refuses from memory; a replica that has not been listening for a whole window, or lost
 * its connection, does not vouch (the caller then asks Redis).
 */
import { Redis } from 'ioredis';
import { sharedBlocks, type SharedBlocks } from '../../src/domain/shared-blocks.js';
import { privateRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';

const WINDOW_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(what: string, probe: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

test('a block announced by one replica is known to the other from memory, once it has listened for a whole window', async () => {
  const channel = `${uniquePrefix()}:blocks`;
  const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
  const [a, b]: SharedBlocks[] = clients.map((client) => sharedBlocks(client, channel, WINDOW_MS));
  try {
    expect(b!.remainingMs('wiki|192.0.2.1')).toBeUndefined(); // just started: blocks set before may exist
    await sleep(WINDOW_MS + 200);
    expect(b!.remainingMs('wiki|192.0.2.1')).toBe(0);
    a!.announce('wiki|192.0.2.1', 30_000);
    expect(a!.remainingMs('wiki|192.0.2.1')).toBeGreaterThan(29_000); // the announcing replica at once
    await eventually('the announcement', () => (b!.remainingMs('wiki|192.0.2.1') ?? 0) > 0);
    expect(b!.remainingMs('wiki|192.0.2.1')).toBeLessThanOrEqual(30_000);
    expect(b!.remainingMs('wiki|192.0.2.2')).toBe(0); // another address is not blocked

    a!.announce('crm|192.0.2.1', 50);
    await eventually('the short block', () => (b!.remainingMs('crm|192.0.2.1') ?? 0) > 0);
    await sleep(80);
    expect(b!.remainingMs('crm|192.0.2.1')).toBe(0); // it ends on its own
  } finally {
    for (const blocks of [a, b]) blocks!.close();
    for (const client of clients) client.disconnect();
  }
});

test('a replica that lost its Redis connection does not vouch until it has listened again for a whole window', async () => {
  const redis = await privateRedis();
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  client.on('error', () => {});
  const blocks = sharedBlocks(client, 'blocks', WINDOW_MS);
  try {
    await sleep(WINDOW_MS + 200);
    expect(blocks.remainingMs('wiki|192.0.2.9')).toBe(0);
    await redis.stop();
    await eventually('the loss', () => blocks.remainingMs('wiki|192.0.2.9') === undefined);
    await redis.start();
    await sleep(WINDOW_MS / 2);
    expect(blocks.remainingMs('wiki|192.0.2.9')).toBeUndefined();
    await eventually('vouching again', () => blocks.remainingMs('wiki|192.0.2.9') === 0, 10_000);
  } finally {
    blocks.close();
    client.disconnect();
    await redis.stop();
  }
});
