/**
 * The storage contract's conformance suite (src/store/contract.ts). Every backend runs all of it:
 * basic behaviour, transactions (all or nothing) and concurrency (uniqueness under racing writers).
 */
import type { Store } from '../../src/store/contract.js';
import { UniqueViolation } from '../../src/store/contract.js';
import type { TestDatabase } from '../helpers/database.js';

const user = (n: number | string, extra: Record<string, unknown> = {}) => ({
  username: `user${n}@example.com`,
  email: `user${n}@example.com`,
  name: `User ${n}`,
  ...extra,
});

export function runStoreConformance(open: () => Promise<TestDatabase>): void {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await open();
    store = db.store;
  });
  afterAll(async () => {
    await db.close();
  });

  describe('users', () => {
    test('insert returns the stored row with defaults', async () => {
      const row = await store.users.insert(user('basic', { attributes: { first_name: 'Ada' } }));
      expect(row).toMatchObject({ username: 'userbasic@example.com', is_active: true, email_verified: false, last_login: null, attributes: { first_name: 'Ada' } });
      expect(row.id).toEqual(expect.any(Number));
      expect(row.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(await store.users.findById(row.id)).toEqual(row);
    });

    test('e-mail and username are unique case-insensitively', async () => {
      await store.users.insert(user('Case'));
      await expect(store.users.insert(user('other', { email: 'USERCASE@example.com' }))).rejects.toEqual(new UniqueViolation('email'));
      await expect(store.users.insert(user('other2', { username: 'USERcase@example.com' }))).rejects.toEqual(new UniqueViolation('username'));
    });

    test('update changes the given fields, bumps updated_at and keeps uniqueness', async () => {
      const a = await store.users.insert(user('upd-a'));
      await store.users.insert(user('upd-b'));
      const updated = await store.users.update(a.id, { name: 'Renamed', is_active: false, attributes: { x: [1, 2] } });
      expect(updated).toMatchObject({ name: 'Renamed', is_active: false, email: a.email, attributes: { x: [1, 2] } });
      expect(updated!.updated_at.getTime()).toBeGreaterThanOrEqual(a.updated_at.getTime());
      await expect(store.users.update(a.id, { email: 'USERUPD-B@example.com' })).rejects.toEqual(new UniqueViolation('email'));
      expect(await store.users.update(2147483000, { name: 'x' })).toBeUndefined();
    });

    test('delete removes the user and its memberships', async () => {
      const row = await store.users.insert(user('del'));
      const group = await store.groups.insert({ name: 'del-group' });
      await store.groups.addMember(group.uuid, row.id);
      expect(await store.users.delete(row.id)).toBe(true);
      expect(await store.users.delete(row.id)).toBe(false);
      expect((await store.groups.membersOf([group.uuid])).get(group.uuid)).toEqual([]);
    });

    test('list filters by e-mail, search, activity and groups, ordered by id', async () => {
      const group = await store.groups.insert({ name: 'list-group' });
      const other = await store.groups.insert({ name: 'list-other' });
      const a = await store.users.insert(user('list-a', { name: 'Zoë Quintero' }));
      const b = await store.users.insert(user('list-b', { name: 'Quincy 100%_done', is_active: false }));
      const c = await store.users.insert(user('list-c', { name: 'Carl' }));
      await store.groups.addMember(group.uuid, a.id);
      await store.groups.addMember(group.uuid, b.id);
      await store.groups.addMember(other.uuid, c.id);

      const ids = async (filter: Parameters<Store['users']['list']>[0]) =>
        (await store.users.list(filter, { offset: 0, limit: 100 })).rows.map((r) => r.id);

      expect(await ids({ email: 'USERLIST-A@EXAMPLE.COM' })).toEqual([a.id]);
      expect(await ids({ search: 'quin' })).toEqual([a.id, b.id]);
      expect(await ids({ search: 'LIST-C@' })).toEqual([c.id]);
      expect(await ids({ search: '100%_' })).toEqual([b.id]); // wildcards match literally
      expect(await ids({ search: '%' })).toEqual([b.id]);
      expect(await ids({ groups: [group.uuid] })).toEqual([a.id, b.id]);
      expect(await ids({ groups: [group.uuid, other.uuid] })).toEqual([a.id, b.id, c.id]);
      expect(await ids({ groups: [group.uuid], is_active: true })).toEqual([a.id]);

      const page = await store.users.list({ groups: [group.uuid, other.uuid] }, { offset: 1, limit: 1 });
      expect(page).toEqual({ total: 3, rows: [expect.objectContaining({ id: b.id })] });
    });

    test('findByUuid and findByEmail are exact lookups; malformed or unstorable keys find nothing', async () => {
      const row = await store.users.insert(user('Exact'));
      for (let i = 0; i < 5; i++) await store.users.insert(user(`exact-look-alike-${i}`));
      expect((await store.users.findByUuid(row.uuid))?.id).toBe(row.id);
      expect((await store.users.findByUuid(row.uuid.toUpperCase()))?.id).toBe(row.id);
      expect(await store.users.findByUuid('not-a-uuid')).toBeUndefined();
      expect(await store.users.findByUuid('00000000-0000-4000-8000-000000000000')).toBeUndefined();
      expect((await store.users.findByEmail('USEREXACT@example.com'))?.id).toBe(row.id);
      expect(await store.users.findByEmail('userexact@example.co')).toBeUndefined();
      expect(await store.users.findByEmail('user%@example.com')).toBeUndefined();
      expect(await store.users.findByEmail('a\u0000b@example.com')).toBeUndefined();
    });

    test('groupsOf maps every user, members or not', async () => {
      const a = await store.users.insert(user('gof-a'));
      const b = await store.users.insert(user('gof-b'));
      const g = await store.groups.insert({ name: 'gof' });
      await store.groups.addMember(g.uuid, a.id);
      const map = await store.users.groupsOf([a.id, b.id]);
      expect(map.get(a.id)).toEqual([g.uuid]);
      expect(map.get(b.id)).toEqual([]);
    });
  });

  describe('groups', () => {
    test('names are unique case-insensitively; update and delete', async () => {
      const g = await store.groups.insert({ name: 'Admins', attributes: { level: 1 } });
      await expect(store.groups.insert({ name: 'admins' })).rejects.toEqual(new UniqueViolation('name'));
      expect(await store.groups.update(g.uuid, { name: 'Administrators' })).toMatchObject({ name: 'Administrators', attributes: { level: 1 } });
      expect(await store.groups.findByUuid(g.uuid)).toMatchObject({ name: 'Administrators' });
      expect(await store.groups.delete(g.uuid)).toBe(true);
      expect(await store.groups.findByUuid(g.uuid)).toBeUndefined();
      expect(await store.groups.update(g.uuid, { name: 'x' })).toBeUndefined();
    });

    test('membership changes are idempotent and report whether they changed anything', async () => {
      const g = await store.groups.insert({ name: 'members' });
      const u = await store.users.insert(user('member'));
      expect(await store.groups.addMember(g.uuid, u.id)).toBe(true);
      expect(await store.groups.addMember(g.uuid, u.id)).toBe(false);
      expect((await store.groups.membersOf([g.uuid])).get(g.uuid)).toEqual([u.id]);
      expect(await store.groups.removeMember(g.uuid, u.id)).toBe(true);
      expect(await store.groups.removeMember(g.uuid, u.id)).toBe(false);
    });

    test('findByName is exact and case-insensitive, whatever look-alikes exist', async () => {
      const staff = await store.groups.insert({ name: 'Staff' });
      for (let i = 0; i < 150; i++) await store.groups.insert({ name: `staff look-alike ${i}` });
      expect((await store.groups.findByName('staff'))?.uuid).toBe(staff.uuid);
      expect((await store.groups.findByName('STAFF'))?.uuid).toBe(staff.uuid);
      expect(await store.groups.findByName('staf')).toBeUndefined();
      expect(await store.groups.findByName('staff%')).toBeUndefined();
      const u = await store.users.insert(user('staffer'));
      expect(await store.groups.hasMemberNamed('STAFF', u.id)).toBe(false);
      await store.groups.addMember(staff.uuid, u.id);
      expect(await store.groups.hasMemberNamed('STAFF', u.id)).toBe(true);
      expect(await store.groups.hasMemberNamed('staff look-alike 1', u.id)).toBe(false);
    });

    test('missing reports unknown uuids; list searches by name', async () => {
      const g = await store.groups.insert({ name: 'Findable Team' });
      const ghost = '00000000-0000-4000-8000-000000000000';
      expect(await store.groups.missing([g.uuid, ghost, ghost])).toEqual([ghost]);
      const { total, rows } = await store.groups.list({ search: 'findable' }, { offset: 0, limit: 10 });
      expect(total).toBe(1);
      expect(rows[0]!.uuid).toBe(g.uuid);
    });
  });

  describe('api tokens', () => {
    test('only usable tokens are found; revoke is one-shot', async () => {
      const now = new Date();
      const live = await store.apiTokens.insert({ name: 'live', token_hash: 'hash-live', scopes: ['users:read'] });
      await store.apiTokens.insert({ name: 'old', token_hash: 'hash-old', scopes: ['users:read'], expires_at: new Date(now.getTime() - 1000) });
      expect(await store.apiTokens.findUsable('hash-live', now)).toMatchObject({ id: live.id, scopes: ['users:read'] });
      expect(await store.apiTokens.findUsable('hash-old', now)).toBeUndefined();
      expect(await store.apiTokens.findUsable('hash-unknown', now)).toBeUndefined();
      expect(await store.apiTokens.revoke(live.id, now)).toBe(true);
      expect(await store.apiTokens.revoke(live.id, now)).toBe(false);
      expect(await store.apiTokens.findUsable('hash-live', now)).toBeUndefined();
      expect((await store.apiTokens.list()).map((t) => t.name)).toEqual(expect.arrayContaining(['live', 'old']));
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

  describe('instance state', () => {
    test('claimOnce is true for exactly one of many racing callers', async () => {
      const results = await Promise.all(Array.from({ length: 10 }, () => store.state.claimOnce('race-key')));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('transactions', () => {
    test('a failing transaction writes nothing', async () => {
      await expect(
        store.transaction(async (tx) => {
          await tx.users.insert(user('tx-rollback'));
          await tx.groups.insert({ name: 'tx-rollback' });
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect((await store.users.list({ email: 'usertx-rollback@example.com' }, { offset: 0, limit: 1 })).total).toBe(0);
      expect((await store.groups.list({ search: 'tx-rollback' }, { offset: 0, limit: 1 })).total).toBe(0);
    });

    test('a committed transaction keeps all writes; nested calls join it', async () => {
      await store.transaction(async (tx) => {
        const u = await tx.users.insert(user('tx-commit'));
        await tx.transaction(async (inner) => inner.groups.addMember((await inner.groups.insert({ name: 'tx-commit' })).uuid, u.id));
      });
      const { rows } = await store.users.list({ email: 'usertx-commit@example.com' }, { offset: 0, limit: 1 });
      expect((await store.users.groupsOf([rows[0]!.id])).get(rows[0]!.id)).toHaveLength(1);
    });
  });

  describe('concurrency', () => {
    test('lockById and lockByUuid hold the row until the transaction ends: a second locker waits for it', async () => {
      const u = await store.users.insert(user('locked'));
      const g = await store.groups.insert({ name: 'locked group' });
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = store.transaction(async (tx) => {
        expect((await tx.users.lockById(u.id))?.id).toBe(u.id);
        expect((await tx.groups.lockByUuid(g.uuid))?.uuid).toBe(g.uuid);
        await held;
        await tx.users.update(u.id, { name: 'Changed by the first' });
        order.push('first');
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = store.transaction(async (tx) => {
        const row = await tx.users.lockById(u.id);
        order.push('second');
        return row;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      const [, seen] = await Promise.all([first, second]);
      expect(order).toEqual(['first', 'second']);
      expect(seen?.name).toBe('Changed by the first');
      expect(await store.users.lockById(999_999)).toBeUndefined();
    });

    test('20 concurrent inserts of one e-mail: exactly one succeeds', async () => {
      const attempts = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => store.users.insert(user(`race${i}`, { email: 'Race@Example.com' }))),
      );
      const ok = attempts.filter((a) => a.status === 'fulfilled');
      const refused = attempts.filter((a) => a.status === 'rejected') as PromiseRejectedResult[];
      expect(ok).toHaveLength(1);
      expect(refused.map((r) => r.reason)).toEqual(Array(19).fill(new UniqueViolation('email')));
    });
  });

  test('ping answers', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
}
