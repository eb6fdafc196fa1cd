/**
 * SourceLinksRepository: a link is unique both ways — (source, subject) names one user, a user has one link per
 * source — even when two sign-ins race to make it; links are listed per user, touched, removed, and go with their user.
 */
import { UniqueViolation, type Store } from '../../../src/store/contract.js';
import { race, secondClient, useDatabase, type Open } from './fixture.js';

export function runSourceLinksConformance(open: Open): void {
  describe('source links', () => {
    const t = useDatabase(open);
    let store: Store;
    let n = 0;
    const newUser = async () => {
      const email = `linked${++n}@example.com`;
      return store.users.insert({ username: email, email, name: 'Test' });
    };
    beforeAll(() => {
      store = t.store;
    });

    test('a link is found by its upstream identity and listed with its user, by source', async () => {
      const user = await newUser();
      const row = await store.sourceLinks.insert({ source: 'okta', subject: 'sub-1', user_id: user.id });
      expect(row).toEqual({ source: 'okta', subject: 'sub-1', user_id: user.id, created_at: expect.any(Date), last_used_at: null });
      await store.sourceLinks.insert({ source: 'google', subject: '1234', user_id: user.id });
      await expect(store.sourceLinks.find('okta', 'sub-1')).resolves.toMatchObject({ user_id: user.id });
      await expect(store.sourceLinks.find('okta', 'SUB-1')).resolves.toBeUndefined(); // subjects are compared exactly
      await expect(store.sourceLinks.find('google', 'sub-1')).resolves.toBeUndefined();
      expect((await store.sourceLinks.listForUser(user.id)).map((link) => link.source)).toEqual(['google', 'okta']);
    });

    test('unique both ways: one user per upstream identity, one identity per user and source', async () => {
      const [alice, bob] = [await newUser(), await newUser()];
      await store.sourceLinks.insert({ source: 'corp', subject: 'alice', user_id: alice.id });
      await expect(store.sourceLinks.insert({ source: 'corp', subject: 'alice', user_id: bob.id })).rejects.toEqual(
        new UniqueViolation('subject'),
      );
      await expect(store.sourceLinks.insert({ source: 'corp', subject: 'other', user_id: alice.id })).rejects.toEqual(
        new UniqueViolation('source'),
      );
      // The same subject at another source is another person.
      await expect(store.sourceLinks.insert({ source: 'corp2', subject: 'alice', user_id: bob.id })).resolves.toMatchObject({
        user_id: bob.id,
      });
    });

    test('of racing links of one upstream identity, exactly one is made (also from another client)', async () => {
      const users = await Promise.all(Array.from({ length: 6 }, () => newUser()));
      const other = await secondClient(t.db);
      try {
        const outcomes = await race(6, (i) =>
          (i % 2 ? other.store : store).sourceLinks.insert({ source: 'race', subject: 'contested', user_id: users[i]!.id }).then(
            () => 'linked',
            (error: unknown) => (error instanceof UniqueViolation ? error.field : 'failed'),
          ),
        );
        expect(outcomes.filter((outcome) => outcome === 'linked')).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome === 'subject')).toHaveLength(5);
      } finally {
        await other.close();
      }
    });

    test('touch notes a use; remove ends the link of that user and source only; deleting the user ends the rest', async () => {
      const [alice, bob] = [await newUser(), await newUser()];
      await store.sourceLinks.insert({ source: 'gh', subject: '42', user_id: alice.id });
      await store.sourceLinks.insert({ source: 'okta', subject: 'a', user_id: alice.id });
      const now = new Date();
      await expect(store.sourceLinks.touch('gh', '42', now)).resolves.toBe(true);
      await expect(store.sourceLinks.touch('gh', 'nobody', now)).resolves.toBe(false);
      expect((await store.sourceLinks.find('gh', '42'))!.last_used_at!.getTime()).toBe(now.getTime());
      await expect(store.sourceLinks.remove(bob.id, 'gh')).resolves.toBe(false);
      await expect(store.sourceLinks.remove(alice.id, 'gh')).resolves.toBe(true);
      await expect(store.sourceLinks.find('gh', '42')).resolves.toBeUndefined();
      await store.users.delete(alice.id);
      await expect(store.sourceLinks.find('okta', 'a')).resolves.toBeUndefined();
    });

    test('a link made in a transaction that rolls back is not kept', async () => {
      const user = await newUser();
      await expect(
        store.transaction(async (tx) => {
          await tx.sourceLinks.insert({ source: 'rollback', subject: 's', user_id: user.id });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await expect(store.sourceLinks.find('rollback', 's')).resolves.toBeUndefined();
    });
  });
}
