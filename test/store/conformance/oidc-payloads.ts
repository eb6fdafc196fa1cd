/**
 * OidcPayloadsRepository, the oidc-provider adapter's storage: upsert and lookups, expiry that the engine never
 * sees past, atomic consume (single-use codes and rotated refresh tokens), revocation by grant, client and account.
 */
import type { OidcPayload, Store } from '../../../src/store/contract.js';
import { race, useDatabase, type Open } from './fixture.js';

const row = (id: string, extra: Partial<OidcPayload> = {}): Omit<OidcPayload, 'consumed_at'> => ({
  model: 'AuthorizationCode',
  id,
  payload: { jti: id, kind: 'AuthorizationCode' },
  grant_id: null,
  user_code: null,
  uid: null,
  account_id: null,
  client_id: null,
  expires_at: new Date(Date.now() + 60_000),
  ...extra,
});

export function runOidcPayloadsConformance(open: Open): void {
  describe('oidc payloads', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });

    test('upsert stores the payload and its indexed columns; a second upsert replaces them', async () => {
      await store.oidcPayloads.upsert(row('up-1', { grant_id: 'g-up', account_id: 'acc', client_id: 'cli' }));
      expect(await store.oidcPayloads.find('AuthorizationCode', 'up-1', new Date())).toMatchObject({
        id: 'up-1',
        payload: { jti: 'up-1' },
        grant_id: 'g-up',
        account_id: 'acc',
        client_id: 'cli',
        consumed_at: null,
      });
      await store.oidcPayloads.upsert(row('up-1', { payload: { jti: 'up-1', changed: true }, grant_id: 'g-up2' }));
      expect(await store.oidcPayloads.find('AuthorizationCode', 'up-1', new Date())).toMatchObject({
        payload: { changed: true },
        grant_id: 'g-up2',
      });
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
      expect(await store.sweepExpired(new Date())).toEqual({
        oidcPayloads: 0,
        passwordSetup: 0,
        challenges: 0,
        emailChanges: 0,
        sessionDevices: 0,
      });
      expect(await store.oidcPayloads.find('AuthorizationCode', 'sweep-live', new Date())).toBeDefined();
    });

    test('consume succeeds once and marks the row consumed', async () => {
      await store.oidcPayloads.upsert(row('con-1'));
      expect((await store.oidcPayloads.find('AuthorizationCode', 'con-1', new Date()))?.consumed_at).toBeNull();
      expect(await store.oidcPayloads.consume('AuthorizationCode', 'con-1', new Date())).toBe(true);
      expect((await store.oidcPayloads.find('AuthorizationCode', 'con-1', new Date()))?.consumed_at).toBeInstanceOf(Date);
      expect((await store.oidcPayloads.findToRedeem('AuthorizationCode', 'con-1', new Date()))?.consumed_at).toBeInstanceOf(Date);
      await store.oidcPayloads.upsert(row('con-2'));
      expect(await store.oidcPayloads.find('AuthorizationCode', 'con-2', new Date(Date.now() + 3_600_000))).toBeUndefined();
      expect(await store.oidcPayloads.findToRedeem('AuthorizationCode', 'con-2', new Date(Date.now() + 3_600_000))).toBeUndefined();
      expect(await store.oidcPayloads.consume('AuthorizationCode', 'con-1', new Date())).toBe(false);
      expect((await store.oidcPayloads.find('AuthorizationCode', 'con-1', new Date()))?.consumed_at).toBeInstanceOf(Date);
      expect(await store.oidcPayloads.consume('AuthorizationCode', 'missing', new Date())).toBe(false);
    });

    test('redeem: the consume and the new rows in one step; a lost consume writes nothing', async () => {
      await store.oidcPayloads.upsert(row('red-code'));
      const issued = [
        row('red-at', { model: 'AccessToken', grant_id: 'g-red' }),
        row('red-rt', { model: 'RefreshToken', grant_id: 'g-red', account_id: 'acc' }),
      ];
      expect(await store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'red-code' }, issued, new Date())).toEqual({
        won: true,
        inserted: [
          { model: 'AccessToken', id: 'red-at' },
          { model: 'RefreshToken', id: 'red-rt' },
        ],
      });
      expect((await store.oidcPayloads.find('AuthorizationCode', 'red-code', new Date()))?.consumed_at).toBeInstanceOf(Date);
      expect(await store.oidcPayloads.find('AccessToken', 'red-at', new Date())).toMatchObject({
        payload: { jti: 'red-at' },
        grant_id: 'g-red',
      });
      expect(await store.oidcPayloads.find('RefreshToken', 'red-rt', new Date())).toMatchObject({ account_id: 'acc', consumed_at: null });

      const again = [row('red-at-2', { model: 'AccessToken' })];
      expect(await store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'red-code' }, again, new Date())).toEqual({
        won: false,
        inserted: [],
      });
      expect(await store.oidcPayloads.find('AccessToken', 'red-at-2', new Date())).toBeUndefined();
      expect((await store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'no-such-code' }, again, new Date())).won).toBe(false);
      expect(await store.oidcPayloads.find('AccessToken', 'red-at-2', new Date())).toBeUndefined();
      expect((await store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'a\u0000b' }, again, new Date())).won).toBe(false);

      // Without a consume the rows are upserted (a client-credentials token); a consume alone is consume().
      expect(
        await store.oidcPayloads.redeem(undefined, [row('red-cc', { model: 'ClientCredentials', payload: { v: 1 } })], new Date()),
      ).toEqual({
        won: true,
        inserted: [{ model: 'ClientCredentials', id: 'red-cc' }],
      });
      // The second write of one row replaces it, and is no insert.
      expect(
        await store.oidcPayloads.redeem(undefined, [row('red-cc', { model: 'ClientCredentials', payload: { v: 2 } })], new Date()),
      ).toEqual({ won: true, inserted: [] });
      expect((await store.oidcPayloads.find('ClientCredentials', 'red-cc', new Date()))?.payload).toEqual({ v: 2 });
      await store.oidcPayloads.upsert(row('red-alone'));
      expect((await store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'red-alone' }, [], new Date())).won).toBe(true);
      expect((await store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'red-alone' }, [], new Date())).won).toBe(false);
    });

    test('concurrent redeems of one code: exactly one writes its tokens', async () => {
      await store.oidcPayloads.upsert(row('red-race'));
      const results = (
        await race(8, (i) =>
          store.oidcPayloads.redeem(
            { model: 'AuthorizationCode', id: 'red-race' },
            [row(`red-race-at-${i}`, { model: 'AccessToken' })],
            new Date(),
          ),
        )
      ).map((redeemed) => redeemed.won);
      expect(results.filter(Boolean)).toHaveLength(1);
      const written = await Promise.all(results.map((_, i) => store.oidcPayloads.find('AccessToken', `red-race-at-${i}`, new Date())));
      expect(written.filter(Boolean)).toHaveLength(1);
      expect(written.findIndex(Boolean)).toBe(results.findIndex(Boolean));
    });

    test('concurrent consumers: exactly one wins', async () => {
      await store.oidcPayloads.upsert(row('race-1'));
      const results = await Promise.all(
        Array.from({ length: 10 }, () => store.oidcPayloads.consume('AuthorizationCode', 'race-1', new Date())),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test('destroy and revokeByGrantId delete rows, only those named', async () => {
      await store.oidcPayloads.upsert(row('rev-code', { grant_id: 'g-rev' }));
      await store.oidcPayloads.upsert(row('rev-at', { model: 'AccessToken', grant_id: 'g-rev' }));
      await store.oidcPayloads.upsert(row('rev-rt', { model: 'RefreshToken', grant_id: 'g-rev' }));
      await store.oidcPayloads.upsert(row('keep', { model: 'AccessToken', grant_id: 'g-other' }));
      await store.oidcPayloads.revokeByGrantId('g-rev');
      for (const [model, id] of [
        ['AuthorizationCode', 'rev-code'],
        ['AccessToken', 'rev-at'],
        ['RefreshToken', 'rev-rt'],
      ]) {
        expect(await store.oidcPayloads.find(model!, id!, new Date())).toBeUndefined();
      }
      expect(await store.oidcPayloads.find('AccessToken', 'keep', new Date())).toBeDefined();
      await store.oidcPayloads.destroy('AccessToken', 'keep');
      expect(await store.oidcPayloads.find('AccessToken', 'keep', new Date())).toBeUndefined();
    });

    test('revokeByGrantId leaves the sessions, interactions and the grant itself that mention the grant', async () => {
      await store.oidcPayloads.upsert(row('g-int-token', { model: 'AccessToken', grant_id: 'g-int' }));
      for (const model of ['Interaction', 'Session', 'Grant'])
        await store.oidcPayloads.upsert(row('g-int-' + model, { model, grant_id: 'g-int' }));
      await store.oidcPayloads.revokeByGrantId('g-int');
      expect(await store.oidcPayloads.find('AccessToken', 'g-int-token', new Date())).toBeUndefined();
      for (const model of ['Interaction', 'Session', 'Grant'])
        expect(await store.oidcPayloads.find(model, 'g-int-' + model, new Date())).toBeDefined();
    });

    test("revokeClientGrants ends one account's grants and tokens with the named clients only, and names who had a live grant", async () => {
      const mine = { account_id: 'acct-1' };
      await store.oidcPayloads.upsert(row('cg-grant-a', { ...mine, model: 'Grant', client_id: 'a' }));
      await store.oidcPayloads.upsert(row('cg-at-a', { ...mine, model: 'AccessToken', client_id: 'a', grant_id: 'cg-grant-a' }));
      await store.oidcPayloads.upsert(row('cg-rt-b', { ...mine, model: 'RefreshToken', client_id: 'b' })); // a token, no grant
      await store.oidcPayloads.upsert(row('cg-grant-c', { ...mine, model: 'Grant', client_id: 'c' }));
      await store.oidcPayloads.upsert(row('cg-session', { ...mine, model: 'Session' }));
      await store.oidcPayloads.upsert(row('cg-grant-other', { account_id: 'acct-2', model: 'Grant', client_id: 'a' }));
      expect(await store.oidcPayloads.revokeClientGrants('acct-1', ['a', 'b'], new Date())).toEqual(['a']);
      for (const [model, id] of [
        ['Grant', 'cg-grant-a'],
        ['AccessToken', 'cg-at-a'],
        ['RefreshToken', 'cg-rt-b'],
      ]) {
        expect(await store.oidcPayloads.find(model!, id!, new Date())).toBeUndefined();
      }
      for (const [model, id] of [
        ['Grant', 'cg-grant-c'],
        ['Session', 'cg-session'],
        ['Grant', 'cg-grant-other'],
      ]) {
        expect(await store.oidcPayloads.find(model!, id!, new Date())).toBeDefined();
      }
      expect(await store.oidcPayloads.revokeClientGrants('acct-1', [], new Date())).toEqual([]);
    });

    test('a rotated refresh token is consumed once: of 10 racing consumers exactly one wins', async () => {
      await store.oidcPayloads.upsert(row('race-rt', { model: 'RefreshToken', grant_id: 'g-race' }));
      const results = await race(10, () => store.oidcPayloads.consume('RefreshToken', 'race-rt', new Date()));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.oidcPayloads.consume('RefreshToken', 'race-rt', new Date())).toBe(false);
    });

    test('findByUserCode and findByUid miss expired rows and other models', async () => {
      const past = new Date(Date.now() - 1000);
      await store.oidcPayloads.upsert(row('dev-old', { model: 'DeviceCode', user_code: 'OLD-CODE', expires_at: past }));
      await store.oidcPayloads.upsert(row('int-1', { model: 'Interaction', uid: 'uid-int' }));
      expect(await store.oidcPayloads.findByUserCode('DeviceCode', 'OLD-CODE', new Date())).toBeUndefined();
      expect(await store.oidcPayloads.findByUserCode('DeviceCode', 'NO-SUCH', new Date())).toBeUndefined();
      expect(await store.oidcPayloads.findByUid('Session', 'uid-int', new Date())).toBeUndefined();
      expect((await store.oidcPayloads.findByUid('Interaction', 'uid-int', new Date()))?.id).toBe('int-1');
    });

    test('grantedClients lists live grants only; destroyByAccount removes every row of the account and nothing else', async () => {
      await store.oidcPayloads.upsert(row('g1', { model: 'Grant', account_id: 'acc-1', client_id: 'wiki' }));
      await store.oidcPayloads.upsert(row('g2', { model: 'Grant', account_id: 'acc-1', client_id: 'crm' }));
      await store.oidcPayloads.upsert(
        row('g3', { model: 'Grant', account_id: 'acc-1', client_id: 'old', expires_at: new Date(Date.now() - 1000) }),
      );
      await store.oidcPayloads.upsert(row('g4', { model: 'Grant', account_id: 'acc-2', client_id: 'docs' }));
      await store.oidcPayloads.upsert(row('at1', { model: 'AccessToken', account_id: 'acc-1', client_id: 'other', grant_id: 'g1' }));
      await store.oidcPayloads.upsert(row('s1', { model: 'Session', account_id: 'acc-1', uid: 'u1' }));

      expect(await store.oidcPayloads.grantedClients('acc-1', new Date())).toEqual(['crm', 'wiki']);
      expect(await store.oidcPayloads.destroyByAccount('acc-1')).toBe(5);
      expect(await store.oidcPayloads.find('Session', 's1', new Date())).toBeUndefined();
      expect(await store.oidcPayloads.grantedClients('acc-1', new Date())).toEqual([]);
      expect(await store.oidcPayloads.grantedClients('acc-2', new Date())).toEqual(['docs']);
    });

    test("findByAccount: the account's live rows of one model, payload included; not other models, accounts or expired rows", async () => {
      const sessionOf = (sid: string) => ({ accountId: 'acc-f', authorizations: { wiki: { sid, grantId: `fg-${sid}` } } });
      await store.oidcPayloads.upsert(row('fs2', { model: 'Session', account_id: 'acc-f', uid: 'fu2', payload: sessionOf('s2') }));
      await store.oidcPayloads.upsert(row('fs1', { model: 'Session', account_id: 'acc-f', uid: 'fu1', payload: sessionOf('s1') }));
      await store.oidcPayloads.upsert(
        row('fs-old', { model: 'Session', account_id: 'acc-f', uid: 'fu3', expires_at: new Date(Date.now() - 1000) }),
      );
      await store.oidcPayloads.upsert(row('fs-other', { model: 'Session', account_id: 'acc-g', uid: 'fu4' }));
      await store.oidcPayloads.upsert(row('fg-s1', { model: 'Grant', account_id: 'acc-f', client_id: 'wiki' }));

      const sessions = await store.oidcPayloads.findByAccount('Session', 'acc-f', new Date());
      expect(sessions.map((session) => session.id)).toEqual(['fs1', 'fs2']);
      expect(sessions[0]!.payload).toEqual(sessionOf('s1'));
      expect((await store.oidcPayloads.findByAccount('Grant', 'acc-f', new Date())).map((grant) => [grant.id, grant.client_id])).toEqual([
        ['fg-s1', 'wiki'],
      ]);
      expect(await store.oidcPayloads.findByAccount('Session', 'acc-none', new Date())).toEqual([]);
    });

    test('destroyByAccount may keep one session: its grants and tokens still go, other sessions too', async () => {
      await store.oidcPayloads.upsert(row('kg1', { model: 'Grant', account_id: 'acc-k', client_id: 'wiki' }));
      await store.oidcPayloads.upsert(row('kat1', { model: 'AccessToken', account_id: 'acc-k', client_id: 'wiki', grant_id: 'kg1' }));
      await store.oidcPayloads.upsert(row('ks1', { model: 'Session', account_id: 'acc-k', uid: 'keep-me' }));
      await store.oidcPayloads.upsert(row('ks2', { model: 'Session', account_id: 'acc-k', uid: 'other' }));
      await store.oidcPayloads.upsert(row('ks3', { model: 'Session', account_id: 'acc-other', uid: 'keep-me-not-mine' }));

      expect(await store.oidcPayloads.destroyByAccount('acc-k', 'keep-me')).toBe(3);
      expect((await store.oidcPayloads.findByUid('Session', 'keep-me', new Date()))?.id).toBe('ks1');
      expect(await store.oidcPayloads.findByUid('Session', 'other', new Date())).toBeUndefined();
      expect(await store.oidcPayloads.find('AccessToken', 'kat1', new Date())).toBeUndefined();
      expect((await store.oidcPayloads.find('Session', 'ks3', new Date()))?.id).toBe('ks3');
    });
  });
}
