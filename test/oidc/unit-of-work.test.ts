/**
 * The one rule for a code or refresh token used twice (src/oidc/engine-storage/unit-of-work.ts), on real stores:
 * whether the consume was noted in the token endpoint's batch or made at once (an in-process redemption, such as
 * the account page's), losing it ends the grant with every token issued from it and answers invalid_grant.
 */
import { errors } from 'oidc-provider';
import { engines, openReplicaTestDatabase, type TestDatabase } from '../helpers/database.js';
import { UnitOfWork, type UnitOfWorkOptions } from '../../src/oidc/engine-storage/unit-of-work.js';
import type { OidcPayload } from '../../src/store/contract.js';

const row = (model: string, id: string, extra: Partial<OidcPayload> = {}): Omit<OidcPayload, 'consumed_at'> => ({
  model,
  id,
  payload: { jti: id, grantId: extra.grant_id },
  grant_id: null,
  user_code: null,
  uid: null,
  account_id: 'acct',
  client_id: 'wiki',
  expires_at: new Date(Date.now() + 60_000),
  ...extra,
});

describe.each(engines)('a reused code or refresh token (%s, replica store)', (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openReplicaTestDatabase(engine);
  });
  afterAll(async () => db?.close());

  async function grantWithTokens(grant: string) {
    await db.store.oidcPayloads.upsert(row('Grant', grant));
    await db.store.oidcPayloads.upsert(row('RefreshToken', `${grant}-rt`, { grant_id: grant }));
    await db.store.oidcPayloads.upsert(row('AccessToken', `${grant}-at`, { grant_id: grant }));
  }
  const gone = async (grant: string) =>
    Promise.all(
      ['Grant', 'RefreshToken', 'AccessToken'].map((model) =>
        db.store.oidcPayloads.find(model, model === 'Grant' ? grant : `${grant}-${model === 'RefreshToken' ? 'rt' : 'at'}`, new Date()),
      ),
    );

  test.each([
    ['batched (the token endpoint)', { batch: true, redeems: true } as UnitOfWorkOptions],
    ['unbatched (an in-process redemption)', {} as UnitOfWorkOptions],
  ])('%s: the consume lost to an earlier one ends the grant and its tokens, and answers invalid_grant', async (_, options) => {
    const grant = `g-${options.batch ? 'batched' : 'alone'}`;
    await grantWithTokens(grant);
    const work = new UnitOfWork(db.store, options);
    // The request reads the token (a replica may answer from memory), then someone else redeems it first.
    expect((await work.find('RefreshToken', `${grant}-rt`))?.consumed_at).toBeNull();
    expect(await db.store.oidcPayloads.consume('RefreshToken', `${grant}-rt`, new Date())).toBe(true);

    const redeem = async () => {
      await work.consume('RefreshToken', `${grant}-rt`);
      await work.save(row('RefreshToken', `${grant}-rt2`, { grant_id: grant }));
      await work.commit();
    };
    await expect(redeem()).rejects.toBeInstanceOf(errors.InvalidGrant);
    expect(await gone(grant)).toEqual([undefined, undefined, undefined]);
    expect(await db.store.oidcPayloads.find('RefreshToken', `${grant}-rt2`, new Date())).toBeUndefined();
  });

  test('a consume that wins writes the new tokens and ends nothing', async () => {
    await grantWithTokens('g-ok');
    const work = new UnitOfWork(db.store, { batch: true, redeems: true });
    await work.find('RefreshToken', 'g-ok-rt');
    await work.consume('RefreshToken', 'g-ok-rt');
    await work.save(row('RefreshToken', 'g-ok-rt2', { grant_id: 'g-ok' }));
    await work.commit();
    expect(await db.store.oidcPayloads.find('Grant', 'g-ok', new Date())).toBeDefined();
    expect(await db.store.oidcPayloads.find('RefreshToken', 'g-ok-rt2', new Date())).toBeDefined();
    expect((await db.store.oidcPayloads.find('RefreshToken', 'g-ok-rt', new Date()))?.consumed_at).toBeInstanceOf(Date);
  });
});
