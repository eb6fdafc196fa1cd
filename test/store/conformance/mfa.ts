/**
 * MfaRepository: a pending TOTP secret is replaceable until confirmed; time steps only move forward and each is
 * used once, also under racing callers (replay protection); recovery codes are a set, each consumed once.
 */
import type { Store } from '../../../src/store/contract.js';
import { race, useDatabase, type Open } from './fixture.js';

export function runMfaConformance(open: Open): void {
  describe('mfa', () => {
    const t = useDatabase(open);
    let store: Store;
    let n = 0;
    const newUser = async () => {
      const email = `mfa${++n}@example.com`;
      return store.users.insert({ username: email, email, name: 'Test' });
    };
    beforeAll(() => {
      store = t.store;
    });

    test('a pending TOTP secret can be replaced, a confirmed one cannot', async () => {
      const user = await newUser();
      await expect(store.mfa.findTotp(user.id)).resolves.toBeUndefined();
      await expect(store.mfa.savePendingTotp(user.id, 'v1.a')).resolves.toBe(true);
      await expect(store.mfa.savePendingTotp(user.id, 'v1.b')).resolves.toBe(true);
      await expect(store.mfa.findTotp(user.id)).resolves.toEqual({ user_id: user.id, encrypted_secret: 'v1.b', confirmed_at: null });
      await expect(store.mfa.useTotpStep(user.id, 100, false, new Date())).resolves.toBe(false); // not confirmed yet
      await expect(store.mfa.useTotpStep(user.id, 100, true, new Date())).resolves.toBe(true);
      await expect(store.mfa.savePendingTotp(user.id, 'v1.c')).resolves.toBe(false);
      expect((await store.mfa.findTotp(user.id))!.encrypted_secret).toBe('v1.b');
      await expect(store.mfa.useTotpStep(user.id, 100, true, new Date())).resolves.toBe(false); // confirms once
    });

    test('confirming records the time given', async () => {
      const user = await newUser();
      const at = new Date('2030-02-03T04:05:06Z');
      await store.mfa.savePendingTotp(user.id, 'v1.t');
      await store.mfa.useTotpStep(user.id, 7, true, at);
      await expect(store.mfa.findTotp(user.id)).resolves.toMatchObject({ confirmed_at: at });
      await expect(store.mfa.useTotpStep(user.id, 8, true, new Date())).resolves.toBe(false); // confirm only confirms a pending secret
      await expect(store.mfa.useTotpStep(user.id, 8, false, new Date())).resolves.toBe(true);
    });

    test('time steps only move forward; of racing uses of one step exactly one wins', async () => {
      const user = await newUser();
      await store.mfa.savePendingTotp(user.id, 'v1.x');
      await store.mfa.useTotpStep(user.id, 10, true, new Date());
      const results = await race(8, () => store.mfa.useTotpStep(user.id, 11, false, new Date()));
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(store.mfa.useTotpStep(user.id, 10, false, new Date())).resolves.toBe(false); // older step
      await expect(store.mfa.useTotpStep(user.id, 12, false, new Date())).resolves.toBe(true);
    });

    test('of 10 racing confirmations of one pending secret with one code, exactly one wins', async () => {
      const user = await newUser();
      await store.mfa.savePendingTotp(user.id, 'v1.race');
      const results = await race(10, () => store.mfa.useTotpStep(user.id, 50, true, new Date()));
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(store.mfa.findTotp(user.id)).resolves.toMatchObject({ confirmed_at: expect.any(Date) });
    });

    test('recovery codes: replaced as a set, each consumed once even under a race, removed with the TOTP secret', async () => {
      const user = await newUser();
      await store.mfa.replaceRecoveryCodes(user.id, ['h1', 'h2', 'h3']);
      await store.mfa.replaceRecoveryCodes(user.id, ['h4', 'h5']);
      await expect(store.mfa.recoveryCodesLeft(user.id)).resolves.toBe(2);
      await expect(store.mfa.consumeRecoveryCode(user.id, 'h1', new Date())).resolves.toBe(false);
      const results = await race(8, () => store.mfa.consumeRecoveryCode(user.id, 'h4', new Date()));
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(store.mfa.recoveryCodesLeft(user.id)).resolves.toBe(1);
      await store.mfa.savePendingTotp(user.id, 'v1.y');
      await expect(store.mfa.removeAll(user.id)).resolves.toBe(true);
      await expect(store.mfa.findTotp(user.id)).resolves.toBeUndefined();
      await expect(store.mfa.recoveryCodesLeft(user.id)).resolves.toBe(0);
      await expect(store.mfa.removeAll(user.id)).resolves.toBe(false);
    });

    test('a recovery code belongs to its user; replacing with none leaves none', async () => {
      const owner = await newUser();
      const other = await newUser();
      await store.mfa.replaceRecoveryCodes(owner.id, ['mine']);
      await expect(store.mfa.consumeRecoveryCode(other.id, 'mine', new Date())).resolves.toBe(false);
      await expect(store.mfa.recoveryCodesLeft(owner.id)).resolves.toBe(1);
      await store.mfa.replaceRecoveryCodes(owner.id, []);
      await expect(store.mfa.recoveryCodesLeft(owner.id)).resolves.toBe(0);
      await expect(store.mfa.removeAll(owner.id)).resolves.toBe(false); // nothing left to remove
    });
  });
}
