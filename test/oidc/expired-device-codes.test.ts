/**
 * The engine tells an expired device code from an unknown one (RFC 8628 §3.5 expired_token), so the adapter keeps
 * a device code's row an hour past its payload's expiry (`toldExpired` in src/store/oidc-models.ts); every other
 * model's row ends with its payload, as before. Through the engine's adapter, on real stores.
 */
import { engines, openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { adapterFactory } from '../../src/oidc/engine-storage/adapter.js';
import { EXPIRED_ROWS_KEPT_SECONDS } from '../../src/store/oidc-models.js';

describe.each(engines)('expired rows the engine reads (%s)', (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(engine);
  });
  afterAll(async () => db?.close());

  const now = () => Math.floor(Date.now() / 1000);

  test('a device code expired a minute ago is still found (the engine answers expired_token); an access token is not', async () => {
    const adapter = adapterFactory(db.store);
    const expired = { iat: now() - 660, exp: now() - 60, clientId: 'tv', userCode: 'BCDFGHJK', params: { client_id: 'tv' } };
    await adapter('DeviceCode').upsert('dc-expired', { ...expired, jti: 'dc-expired' }, 600);
    await adapter('AccessToken').upsert('at-expired', { ...expired, jti: 'at-expired' }, 600);
    expect(await adapter('DeviceCode').find('dc-expired')).toMatchObject({ jti: 'dc-expired', exp: expired.exp });
    expect(await adapter('DeviceCode').findByUserCode('BCDFGHJK')).toMatchObject({ jti: 'dc-expired' });
    expect(await adapter('AccessToken').find('at-expired')).toBeUndefined();
  });

  test('an hour after its expiry the device code is gone, and the sweep removes it', async () => {
    const adapter = adapterFactory(db.store);
    const exp = now() - EXPIRED_ROWS_KEPT_SECONDS - 5;
    await adapter('DeviceCode').upsert('dc-old', { jti: 'dc-old', iat: exp - 600, exp, clientId: 'tv' }, 600);
    expect(await adapter('DeviceCode').find('dc-old')).toBeUndefined();
    expect(await db.store.oidcPayloads.sweepExpired(new Date())).toBeGreaterThanOrEqual(1);
  });
});
