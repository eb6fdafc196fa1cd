/** UsersRepository: stored shape, case-insensitive uniqueness (also under racing writers), lookups, filters, paging. */
import { UniqueViolation, type Store } from '../../../src/store/contract.js';
import { sleep, useDatabase, user, type Open } from './fixture.js';

export function runUsersConformance(open: Open): void {
  describe('users', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });

    test('insert returns the stored row with defaults', async () => {
      const row = await store.users.insert(user('basic', { attributes: { first_name: 'Ada' } }));
      expect(row).toMatchObject({
        username: 'userbasic@example.com',
        is_active: true,
        email_verified: false,
        last_login: null,
        attributes: { first_name: 'Ada' },
      });
      expect(row.id).toEqual(expect.any(Number));
      expect(row.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(await store.users.findById(row.id)).toEqual(row);
      expect(row).not.toHaveProperty('password_hash');
    });

    test('e-mail and username are unique case-insensitively', async () => {
      await store.users.insert(user('Case'));
      await expect(store.users.insert(user('other', { email: 'USERCASE@example.com' }))).rejects.toEqual(new UniqueViolation('email'));
      await expect(store.users.insert(user('other2', { username: 'USERcase@example.com' }))).rejects.toEqual(
        new UniqueViolation('username'),
      );
    });

    test('update changes the given fields, bumps updated_at and keeps uniqueness', async () => {
      const a = await store.users.insert(user('upd-a'));
      await store.users.insert(user('upd-b'));
      const updated = await store.users.update(a.id, { name: 'Renamed', is_active: false, attributes: { x: [1, 2] } });
      expect(updated).toMatchObject({ name: 'Renamed', is_active: false, email: a.email, attributes: { x: [1, 2] } });
      expect(updated!.updated_at.getTime()).toBeGreaterThanOrEqual(a.updated_at.getTime());
      await expect(store.users.update(a.id, { email: 'USERUPD-B@example.com' })).rejects.toEqual(new UniqueViolation('email'));
      await expect(store.users.update(a.id, { username: 'userUPD-B@example.com' })).rejects.toEqual(new UniqueViolation('username'));
      expect(await store.users.update(2147483000, { name: 'x' })).toBeUndefined();
      expect((await store.users.findById(a.id))?.email).toBe(a.email); // the refused change left the row as it was
    });

    test('update bumps updated_at even when only a flag changes', async () => {
      const row = await store.users.insert(user('bump'));
      await sleep(20);
      const updated = await store.users.update(row.id, { email_verified: true });
      expect(updated?.email_verified).toBe(true);
      expect(updated!.updated_at.getTime()).toBeGreaterThan(row.updated_at.getTime());
    });

    test('delete removes the user and its memberships', async () => {
      const row = await store.users.insert(user('del'));
      const group = await store.groups.insert({ name: 'del-group' });
      await store.groups.addMember(group.uuid, row.id);
      expect(await store.users.delete(row.id)).toBe(true);
      expect(await store.users.delete(row.id)).toBe(false);
      expect(await store.users.findById(row.id)).toBeUndefined();
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
      expect(await ids({ groups: [group.uuid], is_active: false })).toEqual([b.id]);

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

    test('findByUuidWithGroups: the user and the lower-cased names of their groups, in order', async () => {
      const member = await store.users.insert(user('with-member'));
      const outsider = await store.users.insert(user('with-outsider'));
      const staff = await store.groups.insert({ name: 'Staff-With' });
      const admins = await store.groups.insert({ name: 'Admins-With' });
      await store.groups.addMember(staff.uuid, member.id);
      await store.groups.addMember(admins.uuid, member.id);
      await expect(store.users.findByUuidWithGroups(member.uuid)).resolves.toEqual({
        user: await store.users.findByUuid(member.uuid),
        groups: ['admins-with', 'staff-with'],
      });
      await expect(store.users.findByUuidWithGroups(outsider.uuid)).resolves.toMatchObject({ user: { id: outsider.id }, groups: [] });
      await expect(store.users.findByUuidWithGroups('not-a-uuid')).resolves.toBeUndefined();
      await expect(store.users.findByUuidWithGroups('00000000-0000-4000-8000-000000000000')).resolves.toBeUndefined();
    });

    test('groupsOf maps every user, members or not', async () => {
      const a = await store.users.insert(user('gof-a'));
      const b = await store.users.insert(user('gof-b'));
      const g = await store.groups.insert({ name: 'gof' });
      await store.groups.addMember(g.uuid, a.id);
      const map = await store.users.groupsOf([a.id, b.id]);
      expect(map.get(a.id)).toEqual([g.uuid]);
      expect(map.get(b.id)).toEqual([]);
      expect((await store.users.groupsOf([])).size).toBe(0);
    });

    test('lockById returns the row, undefined for an unknown id', async () => {
      const row = await store.users.insert(user('lock-basic'));
      await store.transaction(async (tx) => {
        expect(await tx.users.lockById(row.id)).toEqual(row);
        expect(await tx.users.lockById(2147483000)).toBeUndefined();
      });
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

    test('10 concurrent inserts of one username in different cases: exactly one succeeds', async () => {
      const settled = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.users.insert(user(`uname${i}`, { username: i % 2 ? 'Taken-Name' : 'taken-name' }))),
      );
      expect(settled.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      expect((settled.filter((a) => a.status === 'rejected') as PromiseRejectedResult[]).map((r) => r.reason)).toEqual(
        Array(9).fill(new UniqueViolation('username')),
      );
    });
  });
}
