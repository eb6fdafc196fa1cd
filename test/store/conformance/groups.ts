/** GroupsRepository: case-insensitive unique names, exact lookups, memberships, ordering and paging. */
import { UniqueViolation, type Store } from '../../../src/store/contract.js';
import { useDatabase, user, type Open } from './fixture.js';

export function runGroupsConformance(open: Open): void {
  describe('groups', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });

    test('names are unique case-insensitively; update and delete', async () => {
      const g = await store.groups.insert({ name: 'Admins', attributes: { level: 1 } });
      await expect(store.groups.insert({ name: 'admins' })).rejects.toEqual(new UniqueViolation('name'));
      expect(await store.groups.update(g.uuid, { name: 'Administrators' })).toMatchObject({
        name: 'Administrators',
        attributes: { level: 1 },
      });
      expect(await store.groups.findByUuid(g.uuid)).toMatchObject({ name: 'Administrators' });
      expect(await store.groups.delete(g.uuid)).toBe(true);
      expect(await store.groups.delete(g.uuid)).toBe(false);
      expect(await store.groups.findByUuid(g.uuid)).toBeUndefined();
      expect(await store.groups.update(g.uuid, { name: 'x' })).toBeUndefined();
    });

    test('10 concurrent inserts of one name in different cases: exactly one succeeds', async () => {
      const settled = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.groups.insert({ name: i % 2 ? 'Racers' : 'racers' })),
      );
      expect(settled.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      expect((settled.filter((a) => a.status === 'rejected') as PromiseRejectedResult[]).map((r) => r.reason)).toEqual(
        Array(9).fill(new UniqueViolation('name')),
      );
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

    test('membersOf lists member ids ascending, whatever the order they joined in; groups without members map to []', async () => {
      const g = await store.groups.insert({ name: 'ordered members' });
      const empty = await store.groups.insert({ name: 'no members' });
      const users = [];
      for (let i = 0; i < 4; i++) users.push(await store.users.insert(user(`ordered-${i}`)));
      for (const u of [...users].reverse()) await store.groups.addMember(g.uuid, u.id);
      const members = await store.groups.membersOf([g.uuid, empty.uuid]);
      expect(members.get(g.uuid)).toEqual(users.map((u) => u.id));
      expect(members.get(empty.uuid)).toEqual([]);
    });

    test('findByName is exact and case-insensitive, whatever look-alikes exist', async () => {
      const staff = await store.groups.insert({ name: 'Staff' });
      for (let i = 0; i < 150; i++) await store.groups.insert({ name: `staff look-alike ${i}` });
      expect((await store.groups.findByName('staff'))?.uuid).toBe(staff.uuid);
      expect((await store.groups.findByName('STAFF'))?.uuid).toBe(staff.uuid);
      expect(await store.groups.findByName('staf')).toBeUndefined();
      expect(await store.groups.findByName('staff%')).toBeUndefined();
      const u = await store.users.insert(user('staffer'));
      // The access-group check compares these lower-cased names with the application's group (userAllowedIn).
      expect((await store.users.findByUuidWithGroups(u.uuid))?.groups).toEqual([]);
      await store.groups.addMember(staff.uuid, u.id);
      expect((await store.users.findByUuidWithGroups(u.uuid))?.groups).toEqual(['staff']);
      // The form the access-group check compares with: the database's own lower-casing.
      await expect(store.groups.comparableName('STAFF')).resolves.toBe('staff');
      await expect(store.groups.comparableName('Staff')).resolves.toBe((await store.users.findByUuidWithGroups(u.uuid))!.groups[0]);
    });

    test('missing reports unknown uuids; list searches by name', async () => {
      const g = await store.groups.insert({ name: 'Findable Team' });
      const ghost = '00000000-0000-4000-8000-000000000000';
      expect(await store.groups.missing([g.uuid, ghost, ghost])).toEqual([ghost]);
      expect(await store.groups.missing([g.uuid])).toEqual([]);
      const { total, rows } = await store.groups.list({ search: 'findable' }, { offset: 0, limit: 10 });
      expect(total).toBe(1);
      expect(rows[0]!.uuid).toBe(g.uuid);
    });

    test('list is ordered by name, and pages are slices of that order with the full total', async () => {
      for (const name of ['page-c', 'page-a', 'page-d', 'page-b']) await store.groups.insert({ name });
      const all = await store.groups.list({ search: 'page-' }, { offset: 0, limit: 10 });
      expect(all.rows.map((g) => g.name)).toEqual(['page-a', 'page-b', 'page-c', 'page-d']);
      const page = await store.groups.list({ search: 'page-' }, { offset: 1, limit: 2 });
      expect(page).toEqual({ total: 4, rows: [expect.objectContaining({ name: 'page-b' }), expect.objectContaining({ name: 'page-c' })] });
    });

    test('lockByUuid returns the row, undefined for an unknown uuid', async () => {
      const g = await store.groups.insert({ name: 'lockable' });
      await store.transaction(async (tx) => {
        expect(await tx.groups.lockByUuid(g.uuid)).toEqual(g);
        expect(await tx.groups.lockByUuid('00000000-0000-4000-8000-000000000000')).toBeUndefined();
      });
    });
  });
}
