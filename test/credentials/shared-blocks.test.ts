/**
 * Client-authentication blocks announced to every replica (src/domain/shared-blocks.ts), on real Redis: what one
 * replica blocks, another refuses from memory; a replica that starts reads the blocks already in force, and one
 * that could not read them and has not been listening for a whole window, or lost its connection, does not vouch
 * (the caller then asks Redis).
 */
import { Redis } from 'ioredis';
import { sharedBlocks, type SharedBlocks } from '../../src/infra/shared-blocks.js';
import { countersAtLimit, createRateLimits } from '../../src/infra/rate-limiters.js';
import { privateRedis, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { testSettings } from '../helpers/settings.js';

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
  // A longer window than the other tests: a busy machine must not let a whole one pass between the restart and the check.
  const window = 2000;
  const blocks = sharedBlocks(client, 'blocks', window);
  try {
    await eventually('vouching', () => blocks.remainingMs('wiki|192.0.2.9') === 0);
    await redis.stop();
    await eventually('the loss', () => blocks.remainingMs('wiki|192.0.2.9') === undefined);
    await redis.start();
    const restarted = Date.now();
    await eventually('the reconnection', () => client.status === 'ready');
    if (Date.now() - restarted < window) expect(blocks.remainingMs('wiki|192.0.2.9')).toBeUndefined();
    await eventually('vouching again', () => blocks.remainingMs('wiki|192.0.2.9') === 0, 10_000);
  } finally {
    blocks.close();
    client.disconnect();
    await redis.stop();
  }
});

test('a replica that starts while a block is in force knows it at once, without waiting a window', async () => {
  const prefix = uniquePrefix();
  const client = new Redis(REDIS_URL);
  const settings = await testSettings({ redis: { url: REDIS_URL, prefix } });
  const running = createRateLimits(settings, client);
  let starting: SharedBlocks | undefined;
  try {
    await client.ping(); // connected: the counters go to Redis, not to the in-process fallback
    // The running replica counts 20 failures for one caller (its limit) and 3 for another.
    for (let i = 0; i < 20; i += 1) await running.attempt([['client_auth', 'wiki|192.0.2.1']]);
    for (let i = 0; i < 3; i += 1) await running.attempt([['client_auth', 'wiki|192.0.2.2']]);
    expect(await running.check([['client_auth', 'wiki|192.0.2.1']])).toMatchObject({ allowed: false, kind: 'client_auth' });

    // A window of a minute: only reading the counters can make it vouch within the test.
    starting = sharedBlocks(client, `${prefix}:rl:blocks`, 60_000, countersAtLimit(client, `${prefix}:rl:client_auth`, 20));
    await eventually('vouching', () => starting!.remainingMs('wiki|192.0.2.9') === 0);
    expect(starting.remainingMs('wiki|192.0.2.1')).toBeGreaterThan(50_000);
    expect(starting.remainingMs('wiki|192.0.2.1')).toBeLessThanOrEqual(60_000);
    expect(starting.remainingMs('wiki|192.0.2.2')).toBe(0); // under its limit
  } finally {
    starting?.close();
    running.close();
    client.disconnect();
  }
});

test('a replica that cannot read the blocks in force waits a whole window before it vouches', async () => {
  const client = new Redis(REDIS_URL);
  const blocks = sharedBlocks(client, `${uniquePrefix()}:blocks`, WINDOW_MS, () => Promise.reject(new Error('unreadable')));
  try {
    await sleep(WINDOW_MS / 2);
    expect(blocks.remainingMs('wiki|192.0.2.1')).toBeUndefined();
    await eventually('vouching after the window', () => blocks.remainingMs('wiki|192.0.2.1') === 0);
  } finally {
    blocks.close();
    client.disconnect();
  }
});

test('a read of the blocks in force that ends after its connection closed does not make the replica vouch', async () => {
  const redis = await privateRedis();
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  client.on('error', () => {});
  const reads: Array<(blocks: Array<[string, number]>) => void> = [];
  const blocks = sharedBlocks(client, 'blocks', 60_000, () => new Promise((resolve) => reads.push(resolve)));
  try {
    await eventually('the first read', () => reads.length === 1);
    await redis.stop();
    await sleep(300); // the subscriber has seen its connection close
    reads[0]!([['wiki|192.0.2.1', Date.now() + 30_000]]);
    await sleep(50);
    expect(blocks.remainingMs('wiki|192.0.2.7')).toBeUndefined(); // not subscribed: it cannot vouch
    await redis.start();
    await eventually('the read of the new connection', () => reads.length === 2, 10_000);
    expect(blocks.remainingMs('wiki|192.0.2.7')).toBeUndefined();
    reads[1]!([['wiki|192.0.2.2', Date.now() + 30_000]]);
    await eventually('vouching', () => blocks.remainingMs('wiki|192.0.2.7') === 0);
    expect(blocks.remainingMs('wiki|192.0.2.2')).toBeGreaterThan(29_000);
    expect(blocks.remainingMs('wiki|192.0.2.1')).toBe(0); // the stale read was dropped
  } finally {
    blocks.close();
    client.disconnect();
    await redis.stop();
  }
});
