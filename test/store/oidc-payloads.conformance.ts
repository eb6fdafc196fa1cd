/**
 * Conformance of the OIDC parts of the store contract: the oidc-provider adapter's storage (atomic
 * consume, expiry, grant revocation, sweeping), signing keys and credentials. Every backend runs it.
 */
import type { OidcPayload, Store } from '../../src/store/contract.js';
import type { TestDatabase } from '../helpers/database.js';

const row = (id: string, extra: Partial<OidcPayload> = {}): Omit<OidcPayload, 'consumed_at'> => ({
  model: 'AuthorizationCode', id, payload: { jti: id, kind: 'AuthorizationCode' },
  grant_id: null, user_code: null, uid: null, account_id: null, client_id: null,
  expires_at: new Date(Date.now() + 60_000), ...extra,
});

export function runOidcPayloadsConformance(open: () => Promise<TestDatabase>): void {
  describe('oidc-adapter', () => {
    let db: TestDatabase;
    let store: Store;
    beforeAll(async () => {
      db = await open();
      store = db.store;
    });
    afterAll(async () => db.close());

    test('upsert stores the payload and its indexed columns; a second upsert replaces them', async () => {
      await store.oidcPayloads.upsert(row('up-1', { grant_id: 'g-up', account_id: 'acc', client_id: 'cli' }));
      expect(await store.oidcPayloads.find('AuthorizationCode', 'up-1', new Date())).toMatchObject({
        id: 'up-1', payload: { jti: 'up-1' }, grant_id: 'g-up', account_id: 'acc', client_id: 'cli', consumed_at: null,
      });
      await store.oidcPayloads.upsert(row('up-1', { payload: { jti: 'up-1', changed: true }, grant_id: 'g-up2' }));
      expect(await store.oidcPayloads.find('AuthorizationCode', 'up-1', new Date())).toMatchObject({ payload: { changed: true }, grant_id: 'g-up2' });
      expect(await store.oidcPayloads.find('AccessToken', 'up-1', new Date())).toBeUndefined(); // models are separate
    });

    test('findByUid and findByUserCode look up by their columns', async () => {
      await store.oidcPayloads.upsert(row('sess-1', { model: 'Session', uid: 'uid-1' }));
      await store.oidcPayloads.upsert(row('dev-1', { model: 'DeviceCode', user_code: 'ABCD-EFGH' }));
      expect((await store.oidcPayloads.findByUid('Session', 'uid-1', new Date()))?.id).toBe('sess-1');
      expect((await store.oidcPayloads.findByUserCode('DeviceCode', 'ABCD-EFGH', new Date()))?.id).toBe('dev-1');
      expect(await store.oidcPayloads.findByUid('Session', 'nope', new Date())).toBeUndefined();
    });

    test('expired rows are invisible before any sweep; rows without expiry never expire', async () => {
      await store.oidcPayloads.upsert(row('exp-1', { expires_at: new Date(Date.now() - 1000), uid: 'uid-exp' }));
      await store.oidcPayloads.upsert(row('exp-none', { expires_at: null }));
      expect(await store.oidcPayloads.find('AuthorizationCode', 'exp-1', new Date())).toBeUndefined();
      expect(await store.oidcPayloads.findByUid('AuthorizationCode', 'uid-exp', new Date())).toBeUndefined();
      expect(await store.oidcPayloads.find('AuthorizationCode', 'exp-none', new Date())).toBeDefined();
    });

    test('sweepExpired deletes expired rows only and returns the count', async () => {
      const past = new Date(Date.now() - 5000);
      await store.oidcPayloads.upsert(row('sweep-1', { expires_at: past }));
      await store.oidcPayloads.upsert(row('sweep-2', { expires_at: past }));
      await store.oidcPayloads.upsert(row('sweep-live'));
      const swept = await store.sweepExpired(new Date());
      expect(swept.oidcPayloads).toBeGreaterThanOrEqual(2);
      expect(await store.sweepExpired(new Date())).toEqual({ oidcPayloads: 0, passwordSetup: 0 });
      expect(await store.oidcPayloads.find('AuthorizationCode', 'sweep-live', new Date())).toBeDefined();
    });

    test('consume succeeds once and marks the row consumed', async () => {
      await store.oidcPayloads.upsert(row('con-1'));
      expect(await store.oidcPayloads.consume('AuthorizationCode', 'con-1', new Date())).toBe(true);
      expect(await store.oidcPayloads.consume('AuthorizationCode', 'con-1', new Date())).toBe(false);
      expect((await store.oidcPayloads.find('AuthorizationCode', 'con-1', new Date()))?.consumed_at).toBeInstanceOf(Date);
      expect(await store.oidcPayloads.consume('AuthorizationCode', 'missing', new Date())).toBe(false);
    });

    test('concurrent consumers: exactly one wins', async () => {
      await store.oidcPayloads.upsert(row('race-1'));
      const results = await Promise.all(Array.from({ length: 10 }, () => store.oidcPayloads.consume('AuthorizationCode', 'race-1', new Date())));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test('destroy and revokeByGrantId delete rows, only those named', async () => {
      await store.oidcPayloads.upsert(row('rev-code', { grant_id: 'g-rev' }));
      await store.oidcPayloads.upsert(row('rev-at', { model: 'AccessToken', grant_id: 'g-rev' }));
      await store.oidcPayloads.upsert(row('rev-rt', { model: 'RefreshToken', grant_id: 'g-rev' }));
      await store.oidcPayloads.upsert(row('keep', { model: 'AccessToken', grant_id: 'g-other' }));
      await store.oidcPayloads.revokeByGrantId('g-rev');
      for (const [model, id] of [['AuthorizationCode', 'rev-code'], ['AccessToken', 'rev-at'], ['RefreshToken', 'rev-rt']]) {
        expect(await store.oidcPayloads.find(model!, id!, new Date())).toBeUndefined();
      }
      expect(await store.oidcPayloads.find('AccessToken', 'keep', new Date())).toBeDefined();
      await store.oidcPayloads.destroy('AccessToken', 'keep');
      expect(await store.oidcPayloads.find('AccessToken', 'keep', new Date())).toBeUndefined();
    });

    test('revokeByGrantId leaves the sessions, interactions and the grant itself that mention the grant', async () => {
      await store.oidcPayloads.upsert(row('g-int-token', { model: 'AccessToken', grant_id: 'g-int' }));
      for (const model of ['Interaction', 'Session', 'Grant']) await store.oidcPayloads.upsert(row('g-int-' + model, { model, grant_id: 'g-int' }));
      await store.oidcPayloads.revokeByGrantId('g-int');
      expect(await store.oidcPayloads.find('AccessToken', 'g-int-token', new Date())).toBeUndefined();
      for (const model of ['Interaction', 'Session', 'Grant']) expect(await store.oidcPayloads.find(model, 'g-int-' + model, new Date())).toBeDefined();
    });

    test('revokeClientGrants ends one account\'s grants and tokens with the named clients only, and names who had a live grant', async () => {
      const mine = { account_id: 'acct-1' };
      await store.oidcPayloads.upsert(row('cg-grant-a', { ...mine, model: 'Grant', client_id: 'a' }));
      await store.oidcPayloads.upsert(row('cg-at-a', { ...mine, model: 'AccessToken', client_id: 'a', grant_id: 'cg-grant-a' }));
      await store.oidcPayloads.upsert(row('cg-rt-b', { ...mine, model: 'RefreshToken', client_id: 'b' })); // a token, no grant
      await store.oidcPayloads.upsert(row('cg-grant-c', { ...mine, model: 'Grant', client_id: 'c' }));
      await store.oidcPayloads.upsert(row('cg-session', { ...mine, model: 'Session' }));
      await store.oidcPayloads.upsert(row('cg-grant-other', { account_id: 'acct-2', model: 'Grant', client_id: 'a' }));
      expect(await store.oidcPayloads.revokeClientGrants('acct-1', ['a', 'b'], new Date())).toEqual(['a']);
      for (const [model, id] of [['Grant', 'cg-grant-a'], ['AccessToken', 'cg-at-a'], ['RefreshToken', 'cg-rt-b']]) {
        expect(await store.oidcPayloads.find(model!, id!, new Date())).toBeUndefined();
      }
      for (const [model, id] of [['Grant', 'cg-grant-c'], ['Session', 'cg-session'], ['Grant', 'cg-grant-other']]) {
        expect(await store.oidcPayloads.find(model!, id!, new Date())).toBeDefined();
      }
      expect(await store.oidcPayloads.revokeClientGrants('acct-1', [], new Date())).toEqual([]);
    });

    test('signing keys: one first key even when replicas race; activate retires the previous key', async () => {
      const firsts = await Promise.all([1, 2, 3].map((n) => store.signingKeys.insertFirst({ kid: `first-${n}`, encrypted_jwk: 'x' })));
      expect(firsts.filter(Boolean)).toHaveLength(1);
      const [first] = await store.signingKeys.list();
      expect(first!.state).toBe('active');
      await store.signingKeys.activate({ kid: 'second', encrypted_jwk: 'y' }, new Date());
      const keys = await store.signingKeys.list();
      expect(keys.map((key) => [key.kid, key.state])).toEqual([['second', 'active'], [first!.kid, 'retired']]);
      expect(keys[1]!.retired_at).toBeInstanceOf(Date);
    });

    test('credentials: password hash, last login and lookup by uuid', async () => {
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
  });
}
