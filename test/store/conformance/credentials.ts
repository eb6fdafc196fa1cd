/** CredentialsRepository: the password hash lives apart from the user row; what a sign-in reads, at once; sign-ins are recorded. */
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
      expect(await store.users.findById(user.id)).not.toHaveProperty('password_hash');
    });

    test('a sign-in is recorded with its audit event, in one statement', async () => {
      const user = await store.users.insert({ username: 'login@example.com', email: 'login@example.com', name: 'Login' });
      const at = new Date('2026-01-02T03:04:05Z');
      await store.credentials.recordLogin(user.id, at, {
        action: 'sign_in.succeeded',
        actor_type: 'user',
        actor: user.uuid,
        user_uuid: user.uuid,
        app: 'wiki',
        ip: '192.0.2.7',
        details: { method: ['pwd'] },
      });
      expect((await store.users.findByUuid(user.uuid))?.last_login).toEqual(at);
      const { rows } = await store.audit.list({ user: user.uuid }, { offset: 0, limit: 5 });
      expect(rows).toEqual([
        expect.objectContaining({
          action: 'sign_in.succeeded',
          actor_type: 'user',
          actor: user.uuid,
          app: 'wiki',
          ip: '192.0.2.7',
          details: { method: ['pwd'] },
        }),
      ]);
    });

    test('the address lookup: the user by e-mail (any case), the hash and the second factors, and the compared form, in one read', async () => {
      const user = await store.users.insert({ username: 'Record@Example.com', email: 'Record@Example.com', name: 'Record' });
      expect(await store.credentials.lookUpAddress('record@example.COM')).toEqual({
        comparable: 'record@example.com',
        record: { user, passwordHash: null, secondFactors: { totp: false, passkey: false } },
      });
      expect(await store.credentials.lookUpAddress('Nobody@Example.com')).toEqual({ comparable: 'nobody@example.com' });
      // Text PostgreSQL cannot hold finds nobody and is its own form.
      expect(await store.credentials.lookUpAddress('record@example.com\u0000')).toEqual({ comparable: 'record@example.com\u0000' });
      expect(await store.credentials.secondFactors(user.id)).toEqual({ totp: false, passkey: false });
      expect(await store.credentials.secondFactors(2147483000)).toEqual({ totp: false, passkey: false });

      await store.credentials.setPasswordHash(user.id, '$2b$04$record');
      await store.mfa.savePendingTotp(user.id, 'encrypted');
      // A pending secret is not a second factor until confirmed.
      expect((await store.credentials.lookUpAddress('record@example.com')).record?.secondFactors).toEqual({ totp: false, passkey: false });
      expect(await store.mfa.useTotpStep(user.id, 1, true, new Date())).toBe(true);
      expect(
        await store.passkeys.add({
          id: 'record-key',
          user_id: user.id,
          public_key: 'pk',
          sign_count: 0,
          transports: [],
          device_type: 'multiDevice',
          backed_up: true,
          name: 'Key',
        }),
      ).toBe(true);
      const { record } = await store.credentials.lookUpAddress('RECORD@example.com');
      expect(record).toEqual({ user, passwordHash: '$2b$04$record', secondFactors: { totp: true, passkey: true } });
      expect(record!.user).not.toHaveProperty('password_hash');
      expect(await store.credentials.secondFactors(user.id)).toEqual({ totp: true, passkey: true });
    });

    test('spellings: the ones the database lowers to the same form find the account and share that form; the others find none', async () => {
      const user = await store.users.insert({ username: 'alice.spell@example.com', email: 'alice.spell@example.com', name: 'Alice' });
      const found = (email: string) => store.credentials.lookUpAddress(email).then(({ record }) => record?.user.id);
      // U+0130 (İ): JavaScript lowers it to "i̇" (two code points), the database to "i" — it finds alice.
      for (const spelling of ['ALICE.SPELL@EXAMPLE.COM', 'al\u0130ce.spell@example.com', 'AL\u0130CE.spell@example.com']) {
        expect(await found(spelling)).toBe(user.id);
        expect((await store.credentials.lookUpAddress(spelling)).comparable).toBe('alice.spell@example.com');
      }
      const misses = [
        'a\u200blice.spell@example.com', // zero-width space
        '\uff41lice.spell@example.com', // fullwidth a
        'ALİCE.SPELL@EXAMPLE.COM'.normalize('NFD'), // İ as I plus a combining dot
        'alice.spell@example.com\u200d',
      ];
      for (const spelling of misses) expect(await found(spelling)).toBeUndefined();
      // Precomposed and combining accents are different text to the database: neither finds the other.
      const accented = await store.users.insert({ username: 'jos\u00e9@example.com', email: 'jos\u00e9@example.com', name: 'José' });
      expect(await found('JOS\u00c9@example.com')).toBe(accented.id);
      expect(await found('jose\u0301@example.com')).toBeUndefined();
      // ß and ẞ: the capital lowers to ß, which is not "ss".
      const strasse = await store.users.insert({ username: 'stra\u00dfe@example.com', email: 'stra\u00dfe@example.com', name: 'Straße' });
      expect(await found('STRA\u1e9eE@example.com')).toBe(strasse.id);
      expect(await found('strasse@example.com')).toBeUndefined();
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
