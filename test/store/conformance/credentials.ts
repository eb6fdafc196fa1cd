/** CredentialsRepository: the password hash lives apart from the user row; sign-ins are recorded. */
import type { Store } from '../../../src/store/contract.js';
import { useDatabase, type Open } from './fixture.js';

export function runCredentialsConformance(open: Open): void {
  describe('credentials', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });

    test('password hash, last login and lookup by uuid', async () => {
      const user = await store.users.insert({ username: 'cred@example.com', email: 'cred@example.com', name: 'Cred' });
      expect(await store.credentials.passwordHash(user.id)).toBeNull();
      expect(await store.credentials.passwordHash(2147483000)).toBeUndefined();
      expect(await store.credentials.setPasswordHash(user.id, '$2b$04$hash')).toBe(true);
      expect(await store.credentials.setPasswordHash(2147483000, 'x')).toBe(false);
      expect(await store.credentials.passwordHash(user.id)).toBe('$2b$04$hash');
      const at = new Date('2026-01-02T03:04:05Z');
      await store.credentials.recordLogin(user.id, at);
      expect((await store.users.findByUuid(user.uuid))?.last_login).toEqual(at);
      expect(await store.users.findById(user.id)).not.toHaveProperty('password_hash');
    });

    test('a new hash replaces the old one; users list and find never carry it', async () => {
      const user = await store.users.insert({ username: 'cred2@example.com', email: 'cred2@example.com', name: 'Cred Two' });
      await store.credentials.setPasswordHash(user.id, '$2b$04$first');
      await store.credentials.setPasswordHash(user.id, '$2b$04$second');
      expect(await store.credentials.passwordHash(user.id)).toBe('$2b$04$second');
      expect((await store.users.list({ email: 'cred2@example.com' }, { offset: 0, limit: 1 })).rows[0]).not.toHaveProperty('password_hash');
      expect(await store.users.findByEmail('cred2@example.com')).not.toHaveProperty('password_hash');
    });
  });
}
