/** The store methods deactivation relies on: which clients an account holds grants with, and destroying all its rows. */
import { engines, openTestDatabase, type TestDatabase } from '../helpers/database.js';
import type { OidcPayload } from '../../src/store/contract.js';

const row = (model: string, id: string, extra: Partial<OidcPayload> = {}): Omit<OidcPayload, 'consumed_at'> => ({
  model, id, payload: { jti: id }, grant_id: null, user_code: null, uid: null, account_id: null, client_id: null,
  expires_at: new Date(Date.now() + 60_000), ...extra,
});

describe.each(engines)('oidc payloads by account (%s)', (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(engine);
  });
  afterAll(async () => db?.close());

  test('grantedClients lists live grants only; destroyByAccount removes every row of the account and nothing else', async () => {
    const store = db.store;
    await store.oidcPayloads.upsert(row('Grant', 'g1', { account_id: 'acc-1', client_id: 'wiki' }));
    await store.oidcPayloads.upsert(row('Grant', 'g2', { account_id: 'acc-1', client_id: 'crm' }));
    await store.oidcPayloads.upsert(row('Grant', 'g3', { account_id: 'acc-1', client_id: 'old', expires_at: new Date(Date.now() - 1000) }));
    await store.oidcPayloads.upsert(row('Grant', 'g4', { account_id: 'acc-2', client_id: 'docs' }));
    await store.oidcPayloads.upsert(row('AccessToken', 'at1', { account_id: 'acc-1', client_id: 'other', grant_id: 'g1' }));
    await store.oidcPayloads.upsert(row('Session', 's1', { account_id: 'acc-1', uid: 'u1' }));

    expect(await store.oidcPayloads.grantedClients('acc-1', new Date())).toEqual(['crm', 'wiki']);
    expect(await store.oidcPayloads.destroyByAccount('acc-1')).toBe(5);
    expect(await store.oidcPayloads.find('Session', 's1', new Date())).toBeUndefined();
    expect(await store.oidcPayloads.grantedClients('acc-1', new Date())).toEqual([]);
    expect(await store.oidcPayloads.grantedClients('acc-2', new Date())).toEqual(['docs']);
  });
});
