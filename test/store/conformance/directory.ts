/**
 * DirectoryRepository: conditions answered in SQL (every kind, every comparison, related rows), pages and totals,
 * memberships with names, users by uuid, external ids kept on users and groups, a group's updated_at; the audit
 * trail's filters (by actor, subject and action).
 */
import type { Condition, Store } from '../../../src/store/contract.js';
import { useDatabase, user, type Open } from './fixture.js';

export function runDirectoryConformance(open: Open): void {
  describe('directory', () => {
    const t = useDatabase(open);
    let store: Store;
    const ids: Record<string, number> = {};
    let staff: string;
    beforeAll(async () => {
      store = t.store;
      for (const [n, extra] of [
        ['ann', { external_id: 'E-1', attributes: { department: 'Sales' } }],
        ['ben', { is_active: false, name: 'Ben Bold' }],
        ['cat', { external_id: 'e-1', attributes: { department: '' } }],
      ] as const) {
        ids[n] = (await store.users.insert(user(n, extra))).id;
      }
      staff = (await store.groups.insert({ name: 'Staff', external_id: 'G-1' })).uuid;
      await store.groups.insert({ name: 'Empty' });
      await store.groups.addMember(staff, ids.ann!);
      await store.groups.addMember(staff, ids.ben!);
    });

    const names = async (where: Condition) =>
      (await store.directory.findUsers(where, { offset: 0, limit: 50 })).rows.map((row) => row.username.slice(4, 7));

    test.each<[string, Condition, string[]]>([
      ['everyone', { kind: 'constant', value: true }, ['ann', 'ben', 'cat']],
      ['no one', { kind: 'constant', value: false }, []],
      ['username eq, case-insensitively', { kind: 'compare', field: 'username', op: 'eq', value: 'USERANN@example.com' }, ['ann']],
      ['username eq, case-exact', { kind: 'compare', field: 'username', op: 'eq', value: 'USERANN@example.com', caseExact: true }, []],
      ['external_id eq is case-exact', { kind: 'compare', field: 'external_id', op: 'eq', value: 'E-1', caseExact: true }, ['ann']],
      ['ne matches an absent value', { kind: 'compare', field: 'external_id', op: 'ne', value: 'E-1', caseExact: true }, ['ben', 'cat']],
      ['co escapes LIKE wildcards', { kind: 'compare', field: 'email', op: 'co', value: '%' }, []],
      ['sw', { kind: 'compare', field: 'name', op: 'sw', value: 'ben' }, ['ben']],
      ['ew', { kind: 'compare', field: 'email', op: 'ew', value: 'N@EXAMPLE.COM' }, ['ann', 'ben']],
      ['gt', { kind: 'compare', field: 'username', op: 'gt', value: 'userb' }, ['ben', 'cat']],
      ['le', { kind: 'compare', field: 'username', op: 'le', value: 'userben@example.com' }, ['ann', 'ben']],
      ['boolean eq', { kind: 'compare', field: 'is_active', op: 'eq', value: false }, ['ben']],
      ['timestamp gt', { kind: 'compare', field: 'created_at', op: 'gt', value: new Date('2000-01-01T00:00:00Z') }, ['ann', 'ben', 'cat']],
      ['attribute text', { kind: 'compare', field: 'attributes.department', op: 'eq', value: 'sales' }, ['ann']],
      ['present: an empty text is absent', { kind: 'present', field: 'attributes.department' }, ['ann']],
      ['present: some group', { kind: 'present', field: 'group.uuid' }, ['ann', 'ben']],
      ['related uuid', { kind: 'compare', field: 'group.uuid', op: 'eq', value: 'not-a-uuid' }, []],
      ['related name', { kind: 'compare', field: 'group.name', op: 'eq', value: 'staff' }, ['ann', 'ben']],
    ])('%s', async (_name, where, expected) => {
      expect(await names(where)).toEqual(expected);
    });

    test('the audit trail filtered by who acted, by whom it was about and by action, newest first', async () => {
      const actor = '11111111-2222-4333-8444-555555555555';
      const about = (await store.users.findById(ids.ann!))!.uuid;
      await store.audit.record({ action: 'user.updated', actor_type: 'user', actor, user_uuid: about });
      await store.audit.record({ action: 'user.updated', actor_type: 'api_token', actor: 'token-1', user_uuid: about });
      await store.audit.record({ action: 'group.created', actor_type: 'user', actor });
      const page = { offset: 0, limit: 10 };
      expect((await store.audit.list({ actor }, page)).rows.map((row) => row.action)).toEqual(['group.created', 'user.updated']);
      expect((await store.audit.list({ actor, user: about }, page)).total).toBe(1);
      expect((await store.audit.list({ actor: 'token-1', action: 'user.updated' }, page)).rows[0]).toMatchObject({
        actor_type: 'api_token',
      });
      expect((await store.audit.list({ actor: 'nobody' }, page)).total).toBe(0);
    });

    test('and, or, not', async () => {
      const inGroupAndActive: Condition = {
        kind: 'and',
        conditions: [
          { kind: 'present', field: 'group.uuid' },
          { kind: 'compare', field: 'is_active', op: 'eq', value: true },
        ],
      };
      const noExternalId: Condition = { kind: 'not', condition: { kind: 'present', field: 'external_id' } };
      expect(await names(inGroupAndActive)).toEqual(['ann']);
      expect(await names(noExternalId)).toEqual(['ben']);
      expect(await names({ kind: 'or', conditions: [inGroupAndActive, noExternalId] })).toEqual(['ann', 'ben']);
      expect(await names({ kind: 'and', conditions: [] })).toEqual(['ann', 'ben', 'cat']);
    });

    test('the uuid of a user compares as a uuid, malformed ones as text', async () => {
      const ann = (await store.users.findById(ids.ann!))!;
      expect(await names({ kind: 'compare', field: 'uuid', op: 'eq', value: ann.uuid.toUpperCase() })).toEqual(['ann']);
      expect(await names({ kind: 'compare', field: 'uuid', op: 'sw', value: ann.uuid.slice(0, 8) })).toContain('ann');
    });

    test('pages and totals; a page of 0 reads no rows', async () => {
      const all: Condition = { kind: 'constant', value: true };
      expect(await store.directory.findUsers(all, { offset: 1, limit: 1 })).toMatchObject({ total: 3, rows: [{ id: ids.ben }] });
      expect(await store.directory.findUsers(all, { offset: 0, limit: 0 })).toEqual({ total: 3, rows: [] });
      expect(await store.directory.findUsers(all, { offset: 10, limit: 5 })).toEqual({ total: 3, rows: [] });
    });

    test('groups: conditions on their fields and members; ordered by name', async () => {
      const groups = async (where: Condition) =>
        (await store.directory.findGroups(where, { offset: 0, limit: 10 })).rows.map((row) => row.name);
      expect(await groups({ kind: 'constant', value: true })).toEqual(['Empty', 'Staff']);
      expect(await groups({ kind: 'compare', field: 'name', op: 'eq', value: 'STAFF' })).toEqual(['Staff']);
      expect(await groups({ kind: 'compare', field: 'external_id', op: 'eq', value: 'G-1', caseExact: true })).toEqual(['Staff']);
      expect(await groups({ kind: 'compare', field: 'member.name', op: 'co', value: 'bold' })).toEqual(['Staff']);
      expect(await groups({ kind: 'not', condition: { kind: 'present', field: 'member.uuid' } })).toEqual(['Empty']);
    });

    test('memberships with names; users by uuid', async () => {
      const ann = (await store.users.findById(ids.ann!))!;
      const members = await store.directory.membersOf([staff]);
      expect(members.get(staff)!.map((m) => m.id)).toEqual([ids.ann, ids.ben]);
      expect(members.get(staff)![0]).toEqual({ id: ann.id, uuid: ann.uuid, name: ann.name });
      expect((await store.directory.groupsOf([ids.ann!, ids.cat!])).get(ids.cat!)).toEqual([]);
      expect((await store.directory.groupsOf([ids.ann!])).get(ids.ann!)).toEqual([{ uuid: staff, name: 'Staff' }]);
      const found = await store.directory.usersByUuid([ann.uuid.toUpperCase(), 'junk', '00000000-0000-4000-8000-000000000000']);
      expect(found.map((row) => row.id)).toEqual([ann.id]);
    });

    test('external ids are kept and changed; a group update bumps updated_at, a membership change does not', async () => {
      const ann = (await store.users.findById(ids.ann!))!;
      expect(ann.external_id).toBe('E-1');
      expect((await store.users.update(ann.id, { external_id: null }))!.external_id).toBeNull();
      const before = (await store.groups.findByUuid(staff))!;
      expect(before.external_id).toBe('G-1');
      await store.groups.addMember(staff, ids.cat!);
      expect((await store.groups.findByUuid(staff))!.updated_at).toEqual(before.updated_at);
      const renamed = (await store.groups.update(staff, { external_id: 'G-2' }))!;
      expect(renamed.external_id).toBe('G-2');
      expect(renamed.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());
      expect(renamed.name).toBe('Staff');
    });
  });
}
