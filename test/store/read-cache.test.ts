/**
 * The replica's read cache (src/store/read-cache.ts) on its own: what it keeps, what it refuses to keep, and what
 * each caller gets. Its change notices and two replicas are tested in change-notices.test.ts and
 * test/performance/replicas.test.ts.
 */
import { createReadCache, type Keeping } from '../../src/store/replica/read-cache.js';

const counting = (value: unknown = 'row') => {
  const load = async () => ((load.calls += 1), value);
  load.calls = 0;
  return load;
};

test('it keeps nothing until the feed is live, and forgets everything when the feed is lost', async () => {
  const cache = createReadCache({ maxEntries: 10, maxAgeMs: 60_000 });
  const load = counting();
  await cache.read('k', load);
  await cache.read('k', load);
  expect([load.calls, cache.size]).toEqual([2, 0]);
  cache.setLive(true);
  await cache.read('k', load);
  await cache.read('k', load);
  expect([load.calls, cache.size]).toEqual([3, 1]);
  cache.setLive(false);
  expect(cache.size).toBe(0);
  await cache.read('k', load);
  expect(load.calls).toBe(4);
});

test('a notice for a key forgets it; a read that a notice raced is answered but not kept', async () => {
  const cache = createReadCache({ maxEntries: 10, maxAgeMs: 60_000 });
  cache.setLive(true);
  const load = counting();
  await cache.read('u:1', load);
  cache.forget('u:1');
  await cache.read('u:1', load);
  expect(load.calls).toBe(2);

  let finish!: (value: string) => void;
  const slow = cache.read('u:2', () => new Promise<string>((resolve) => (finish = resolve)));
  cache.forget('u:2'); // the change committed while the row was on its way
  finish('old row');
  expect(await slow).toBe('old row');
  const after = counting('new row');
  expect(await cache.read('u:2', after)).toBe('new row');
  expect(after.calls).toBe(1);

  const racedByAll = cache.read('u:3', () => new Promise<string>((resolve) => setTimeout(() => resolve('old'), 20)));
  cache.forgetAll('u:');
  await racedByAll;
  const third = counting();
  await cache.read('u:3', third);
  expect(third.calls).toBe(1);
});

test('forgetAll forgets by prefix; undefined answers are not kept', async () => {
  const cache = createReadCache({ maxEntries: 10, maxAgeMs: 60_000 });
  cache.setLive(true);
  await cache.read('u:1', counting());
  await cache.read('p:Grant:1', counting());
  cache.forgetAll('u:');
  expect(cache.size).toBe(1);
  let misses = 0;
  const missing = async () => ((misses += 1), undefined);
  await cache.read('p:Grant:2', missing);
  await cache.read('p:Grant:2', missing);
  expect(misses).toBe(2);
});

test('an entry ends at its own expiry or the maximum age, and the oldest make room', async () => {
  const cache = createReadCache({ maxEntries: 2, maxAgeMs: 60_000 });
  cache.setLive(true);
  const expiring = counting({ expires: Date.now() + 30 });
  await cache.read('p:AccessToken:1', expiring, { expiresAt: (row) => (row as { expires: number }).expires });
  await cache.read('p:AccessToken:1', expiring, { expiresAt: (row) => (row as { expires: number }).expires });
  expect(expiring.calls).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 40));
  await cache.read('p:AccessToken:1', expiring);
  expect(expiring.calls).toBe(2);

  const short = createReadCache({ maxEntries: 2, maxAgeMs: 20 });
  short.setLive(true);
  const aged = counting();
  await short.read('k', aged);
  await new Promise((resolve) => setTimeout(resolve, 30));
  await short.read('k', aged);
  expect(aged.calls).toBe(2);

  const full = createReadCache({ maxEntries: 2, maxAgeMs: 60_000 });
  full.setLive(true);
  const [a, b, c] = [counting(), counting(), counting()];
  for (const [key, load] of [
    ['a', a],
    ['b', b],
    ['c', c],
  ] as const)
    await full.read(key, load);
  expect(full.size).toBe(2);
  await full.read('c', c);
  await full.read('a', a); // the oldest made room for c
  expect([a.calls, b.calls, c.calls]).toEqual([2, 1, 1]);
});

test('each caller gets its own value from the kept form: a change by one never reaches the next', async () => {
  const cache = createReadCache({ maxEntries: 10, maxAgeMs: 60_000 });
  cache.setLive(true);
  const keeping: Keeping<{ scopes: string[] }> = { keep: (value) => JSON.stringify(value), give: (kept) => JSON.parse(kept as string) };
  const first = await cache.read('p:Grant:1', async () => ({ scopes: ['openid'] }), { keeping });
  first!.scopes.push('admin');
  const second = await cache.read('p:Grant:1', async () => ({ scopes: ['never'] }), { keeping });
  expect(second).toEqual({ scopes: ['openid'] });
  second!.scopes.push('admin');
  expect(await cache.read('p:Grant:1', async () => undefined, { keeping })).toEqual({ scopes: ['openid'] });
});

test('a row this replica created is kept without a read, only while live, and a notice forgets it like any entry', async () => {
  const cache = createReadCache({ maxEntries: 10, maxAgeMs: 60_000 });
  cache.keepCreated('p:AccessToken:1', 'issued');
  expect(cache.size).toBe(0); // not live: nothing kept
  cache.setLive(true);
  cache.keepCreated('p:AccessToken:1', 'issued', { expiresAt: () => Date.now() + 60_000 });
  const load = counting('from the database');
  expect(await cache.read('p:AccessToken:1', load)).toBe('issued');
  expect(load.calls).toBe(0);
  cache.forget('p:AccessToken:1');
  expect(await cache.read('p:AccessToken:1', load)).toBe('from the database');
  cache.keepCreated('p:AccessToken:2', 'already over', { expiresAt: () => Date.now() - 1 });
  expect(await cache.read('p:AccessToken:2', load)).toBe('from the database');
});
