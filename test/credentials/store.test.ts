/**
 * The credential repositories against every engine: single-use rows are consumed by compare-and-set, so
 * racing callers never both succeed; attempt counters never pass their limit; expiry and user deletion clean up.
 */
import { engines, openTestDatabase, type TestDatabase } from '../helpers/database.js';
import type { Store } from '../../src/store/contract.js';

describe.each(engines)('credential store (%s)', (engine) => {
  let db: TestDatabase;
  let store: Store;
  let n = 0;
  const newUser = async () => {
    const email = `store${++n}-${Date.now()}@example.com`;
    return store.users.insert({ username: email, email, name: 'Test' });
  };

  beforeAll(async () => {
    db = await openTestDatabase(engine);
    store = db.store;
  });
  afterAll(async () => db?.close());

  test('a pending TOTP secret can be replaced, a confirmed one cannot', async () => {
    const user = await newUser();
    await expect(store.mfa.savePendingTotp(user.id, 'v1.a')).resolves.toBe(true);
    await expect(store.mfa.savePendingTotp(user.id, 'v1.b')).resolves.toBe(true);
    await expect(store.mfa.useTotpStep(user.id, 100, false, new Date())).resolves.toBe(false); // not confirmed yet
    await expect(store.mfa.useTotpStep(user.id, 100, true, new Date())).resolves.toBe(true);
    await expect(store.mfa.savePendingTotp(user.id, 'v1.c')).resolves.toBe(false);
    expect((await store.mfa.findTotp(user.id))!.encrypted_secret).toBe('v1.b');
    await expect(store.mfa.useTotpStep(user.id, 100, true, new Date())).resolves.toBe(false); // confirms once
  });

  test('time steps only move forward; of racing uses of one step exactly one wins', async () => {
    const user = await newUser();
    await store.mfa.savePendingTotp(user.id, 'v1.x');
    await store.mfa.useTotpStep(user.id, 10, true, new Date());
    const race = await Promise.all(Array.from({ length: 8 }, () => store.mfa.useTotpStep(user.id, 11, false, new Date())));
    expect(race.filter(Boolean)).toHaveLength(1);
    await expect(store.mfa.useTotpStep(user.id, 10, false, new Date())).resolves.toBe(false); // older step
    await expect(store.mfa.useTotpStep(user.id, 12, false, new Date())).resolves.toBe(true);
  });

  test('recovery codes: replaced as a set, each consumed once even under a race, removed with the TOTP secret', async () => {
    const user = await newUser();
    await store.mfa.replaceRecoveryCodes(user.id, ['h1', 'h2', 'h3']);
    await store.mfa.replaceRecoveryCodes(user.id, ['h4', 'h5']);
    await expect(store.mfa.recoveryCodesLeft(user.id)).resolves.toBe(2);
    await expect(store.mfa.consumeRecoveryCode(user.id, 'h1', new Date())).resolves.toBe(false);
    const race = await Promise.all(Array.from({ length: 8 }, () => store.mfa.consumeRecoveryCode(user.id, 'h4', new Date())));
    expect(race.filter(Boolean)).toHaveLength(1);
    await expect(store.mfa.recoveryCodesLeft(user.id)).resolves.toBe(1);
    await store.mfa.savePendingTotp(user.id, 'v1.y');
    await expect(store.mfa.removeAll(user.id)).resolves.toBe(true);
    await expect(store.mfa.findTotp(user.id)).resolves.toBeUndefined();
    await expect(store.mfa.recoveryCodesLeft(user.id)).resolves.toBe(0);
    await expect(store.mfa.removeAll(user.id)).resolves.toBe(false);
  });

  test('setup codes: never more than the allowed attempts under concurrency; consumed once', async () => {
    const user = await newUser();
    const id = `interaction-${n}`;
    await store.passwordSetup.saveCode({ id, user_id: user.id, code_hash: 'hash', expires_at: new Date(Date.now() + 60_000) });
    const attempts = await Promise.all(Array.from({ length: 12 }, () => store.passwordSetup.countAttempt(id, 5, new Date())));
    expect(attempts.filter(Boolean).map((row) => row!.attempts).sort()).toEqual([0, 1, 2, 3, 4]);
    await expect(store.passwordSetup.findCode(id)).resolves.toMatchObject({ attempts: 5 });

    await store.passwordSetup.saveCode({ id, user_id: user.id, code_hash: 'hash2', expires_at: new Date(Date.now() + 60_000) }); // a new code resets
    await expect(store.passwordSetup.countAttempt(id, 5, new Date())).resolves.toMatchObject({ attempts: 0, code_hash: 'hash2' });
    const consumed = await Promise.all(Array.from({ length: 6 }, () => store.passwordSetup.consumeCode(id, new Date())));
    expect(consumed.filter(Boolean)).toHaveLength(1);
    await expect(store.passwordSetup.countAttempt(id, 5, new Date())).resolves.toBeUndefined();
  });

  test('an expired setup code takes no attempts', async () => {
    const user = await newUser();
    await store.passwordSetup.saveCode({ id: `old-${n}`, user_id: user.id, code_hash: 'h', expires_at: new Date(Date.now() - 1000) });
    await expect(store.passwordSetup.countAttempt(`old-${n}`, 5, new Date())).resolves.toBeUndefined();
  });

  test('recovery links: live until consumed (once, even under a race) or expired', async () => {
    const user = await newUser();
    const now = new Date();
    await store.passwordSetup.saveLink({ token_hash: `t-${n}`, user_id: user.id, expires_at: new Date(now.getTime() + 60_000) });
    await expect(store.passwordSetup.findLink(`t-${n}`, now)).resolves.toBe(user.id);
    await expect(store.passwordSetup.findLink(`t-${n}`, new Date(now.getTime() + 120_000))).resolves.toBeUndefined();
    const race = await Promise.all(Array.from({ length: 6 }, () => store.passwordSetup.consumeLink(`t-${n}`, now)));
    expect(race.filter((id) => id !== undefined)).toEqual([user.id]);
    await expect(store.passwordSetup.findLink(`t-${n}`, now)).resolves.toBeUndefined();
  });

  test('sweepExpired removes expired codes and links only; deleting a user removes their credentials', async () => {
    const user = await newUser();
    const past = new Date(Date.now() - 1000);
    const future = new Date(Date.now() + 60_000);
    await store.passwordSetup.saveCode({ id: `sweep-old-${n}`, user_id: user.id, code_hash: 'h', expires_at: past });
    await store.passwordSetup.saveCode({ id: `sweep-live-${n}`, user_id: user.id, code_hash: 'h', expires_at: future });
    await store.passwordSetup.saveLink({ token_hash: `sweep-old-${n}`, user_id: user.id, expires_at: past });
    const swept = await store.sweepExpired(new Date());
    expect(swept.passwordSetup).toBeGreaterThanOrEqual(2);
    await expect(store.passwordSetup.findCode(`sweep-old-${n}`)).resolves.toBeUndefined();
    await expect(store.passwordSetup.findCode(`sweep-live-${n}`)).resolves.toBeDefined();

    await store.mfa.savePendingTotp(user.id, 'v1.z');
    await store.mfa.replaceRecoveryCodes(user.id, ['x']);
    await store.users.delete(user.id);
    await expect(store.mfa.findTotp(user.id)).resolves.toBeUndefined();
    await expect(store.passwordSetup.findCode(`sweep-live-${n}`)).resolves.toBeUndefined();
  });
});
