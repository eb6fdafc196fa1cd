/** ApiTokensRepository: only usable tokens are found; revoking is one-shot, also under racing callers. */
import type { Store } from '../../../src/store/contract.js';
import { race, useDatabase, type Open } from './fixture.js';

export function runApiTokensConformance(open: Open): void {
  describe('api tokens', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });

    test('only usable tokens are found; revoke is one-shot', async () => {
      const now = new Date();
      const live = await store.apiTokens.insert({ name: 'live', token_hash: 'hash-live', scopes: ['users:read'] });
      await store.apiTokens.insert({
        name: 'old',
        token_hash: 'hash-old',
        scopes: ['users:read'],
        expires_at: new Date(now.getTime() - 1000),
      });
      expect(await store.apiTokens.findUsable('hash-live', now)).toMatchObject({ id: live.id, scopes: ['users:read'] });
      expect(await store.apiTokens.findUsable('hash-old', now)).toBeUndefined();
      expect(await store.apiTokens.findUsable('hash-unknown', now)).toBeUndefined();
      expect(await store.apiTokens.revoke(live.id, now)).toBe(true);
      expect(await store.apiTokens.revoke(live.id, now)).toBe(false);
      expect(await store.apiTokens.findUsable('hash-live', now)).toBeUndefined();
      expect((await store.apiTokens.list()).map((t) => t.name)).toEqual(expect.arrayContaining(['live', 'old']));
    });

    test('a token expiring later is usable until then; list never shows the hash', async () => {
      const now = new Date();
      const later = await store.apiTokens.insert({
        name: 'later',
        token_hash: 'hash-later',
        scopes: ['users:write'],
        expires_at: new Date(now.getTime() + 60_000),
      });
      expect(await store.apiTokens.findUsable('hash-later', now)).toMatchObject({ id: later.id });
      expect(await store.apiTokens.findUsable('hash-later', new Date(now.getTime() + 61_000))).toBeUndefined();
      expect((await store.apiTokens.list()).find((row) => row.id === later.id)).not.toHaveProperty('token_hash');
    });

    test('revoking a token that is no longer usable (expired) revokes nothing', async () => {
      const now = new Date();
      const expired = await store.apiTokens.insert({
        name: 'expired',
        token_hash: 'hash-expired',
        scopes: [],
        expires_at: new Date(now.getTime() - 1000),
      });
      expect(await store.apiTokens.revoke(expired.id, now)).toBe(false);
    });

    test('10 concurrent revokes of one token: exactly one reports the revocation', async () => {
      const token = await store.apiTokens.insert({ name: 'raced', token_hash: 'hash-raced', scopes: ['users:read'] });
      const results = await race(10, () => store.apiTokens.revoke(token.id, new Date()));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store.apiTokens.list()).find((row) => row.id === token.id)!.revoked_at).toBeInstanceOf(Date);
    });

    test('touch records use at most once a minute', async () => {
      const t = await store.apiTokens.insert({ name: 'touch', token_hash: 'hash-touch', scopes: ['users:read'] });
      const first = new Date('2030-01-01T00:00:00Z');
      await store.apiTokens.touch(t.id, first);
      await store.apiTokens.touch(t.id, new Date(first.getTime() + 30_000));
      expect((await store.apiTokens.list()).find((r) => r.id === t.id)!.last_used_at).toEqual(first);
      const later = new Date(first.getTime() + 120_000);
      await store.apiTokens.touch(t.id, later);
      expect((await store.apiTokens.list()).find((r) => r.id === t.id)!.last_used_at).toEqual(later);
    });
  });
}
