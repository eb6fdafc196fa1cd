/**
 * PasswordSetupRepository: setup codes count attempts atomically and never past the limit, are consumed once;
 * recovery links live until consumed (once) or expired; user deletion removes both.
 */
import type { Store } from '../../../src/store/contract.js';
import { race, useDatabase, type Open } from './fixture.js';

export function runPasswordSetupConformance(open: Open): void {
  describe('password setup', () => {
    const t = useDatabase(open);
    let store: Store;
    let n = 0;
    const newUser = async () => {
      const email = `store${++n}-${Date.now()}@example.com`;
      return store.users.insert({ username: email, email, name: 'Test' });
    };
    beforeAll(() => {
      store = t.store;
    });

    test('setup codes: never more than the allowed attempts under concurrency; consumed once', async () => {
      const user = await newUser();
      const id = `interaction-${n}`;
      await store.passwordSetup.saveCode({ id, user_id: user.id, code_hash: 'hash', expires_at: new Date(Date.now() + 60_000) });
      const attempts = await race(12, () => store.passwordSetup.countAttempt(id, 5, new Date()));
      expect(
        attempts
          .filter(Boolean)
          .map((row) => row!.attempts)
          .sort(),
      ).toEqual([0, 1, 2, 3, 4]);
      await expect(store.passwordSetup.findCode(id)).resolves.toMatchObject({ attempts: 5 });

      await store.passwordSetup.saveCode({ id, user_id: user.id, code_hash: 'hash2', expires_at: new Date(Date.now() + 60_000) }); // a new code resets
      await expect(store.passwordSetup.countAttempt(id, 5, new Date())).resolves.toMatchObject({ attempts: 0, code_hash: 'hash2' });
      const consumed = await race(6, () => store.passwordSetup.consumeCode(id, new Date()));
      expect(consumed.filter(Boolean)).toHaveLength(1);
      await expect(store.passwordSetup.countAttempt(id, 5, new Date())).resolves.toBeUndefined();
    });

    test('countAttempt: 10 concurrent attempts against a limit of 3 count exactly 3, each seeing the row as it was', async () => {
      const user = await newUser();
      const expires = new Date(Date.now() + 60_000);
      await store.passwordSetup.saveCode({ id: `limit-${n}`, user_id: user.id, code_hash: 'h', expires_at: expires });
      const seen = await race(10, () => store.passwordSetup.countAttempt(`limit-${n}`, 3, new Date()));
      const counted = seen.filter((row) => row !== undefined);
      expect(counted.map((row) => row!.attempts).sort()).toEqual([0, 1, 2]);
      expect(counted[0]).toMatchObject({ id: `limit-${n}`, user_id: user.id, code_hash: 'h', expires_at: expires, used_at: null });
      await expect(store.passwordSetup.findCode(`limit-${n}`)).resolves.toMatchObject({ attempts: 3 });
    });

    test('an expired setup code takes no attempts', async () => {
      const user = await newUser();
      await store.passwordSetup.saveCode({ id: `old-${n}`, user_id: user.id, code_hash: 'h', expires_at: new Date(Date.now() - 1000) });
      await expect(store.passwordSetup.countAttempt(`old-${n}`, 5, new Date())).resolves.toBeUndefined();
      await expect(store.passwordSetup.findCode(`old-${n}`)).resolves.toMatchObject({ attempts: 0 });
    });

    test('consumeCode: exactly one of 10 racing callers wins; saving the code again makes it live again', async () => {
      const user = await newUser();
      const id = `consume-${n}`;
      await store.passwordSetup.saveCode({ id, user_id: user.id, code_hash: 'h', expires_at: new Date(Date.now() + 60_000) });
      const at = new Date();
      const results = await race(10, () => store.passwordSetup.consumeCode(id, at));
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(store.passwordSetup.findCode(id)).resolves.toMatchObject({ used_at: at });
      await expect(store.passwordSetup.consumeCode('no-such-code', new Date())).resolves.toBe(false);
      await store.passwordSetup.saveCode({ id, user_id: user.id, code_hash: 'h2', expires_at: new Date(Date.now() + 60_000) });
      await expect(store.passwordSetup.findCode(id)).resolves.toMatchObject({ used_at: null, attempts: 0, code_hash: 'h2' });
      await expect(store.passwordSetup.findCode('no-such-code')).resolves.toBeUndefined();
    });

    test('recovery links: live until consumed (once, even under a race) or expired', async () => {
      const user = await newUser();
      const now = new Date();
      await store.passwordSetup.saveLink({ token_hash: `t-${n}`, user_id: user.id, expires_at: new Date(now.getTime() + 60_000) });
      await expect(store.passwordSetup.findLink(`t-${n}`, now)).resolves.toBe(user.id);
      await expect(store.passwordSetup.findLink(`t-${n}`, new Date(now.getTime() + 120_000))).resolves.toBeUndefined();
      const results = await race(6, () => store.passwordSetup.consumeLink(`t-${n}`, now));
      expect(results.filter((id) => id !== undefined)).toEqual([user.id]);
      await expect(store.passwordSetup.findLink(`t-${n}`, now)).resolves.toBeUndefined();
    });

    test('withdrawInvitations ends the live invitations of that user only, not their recovery links', async () => {
      const [user, other] = [await newUser(), await newUser()];
      const now = new Date();
      const later = new Date(now.getTime() + 60_000);
      await store.passwordSetup.saveLink({ token_hash: `inv-a-${n}`, user_id: user.id, expires_at: later, purpose: 'invitation' });
      await store.passwordSetup.saveLink({ token_hash: `inv-b-${n}`, user_id: user.id, expires_at: later, purpose: 'invitation' });
      await store.passwordSetup.saveLink({ token_hash: `rec-${n}`, user_id: user.id, expires_at: later });
      await store.passwordSetup.saveLink({ token_hash: `inv-other-${n}`, user_id: other.id, expires_at: later, purpose: 'invitation' });
      await expect(store.passwordSetup.withdrawInvitations(user.id, now)).resolves.toBe(2);
      await expect(store.passwordSetup.findLink(`inv-a-${n}`, now)).resolves.toBeUndefined();
      await expect(store.passwordSetup.consumeLink(`inv-b-${n}`, now)).resolves.toBeUndefined();
      await expect(store.passwordSetup.findLink(`rec-${n}`, now)).resolves.toBe(user.id);
      await expect(store.passwordSetup.findLink(`inv-other-${n}`, now)).resolves.toBe(other.id);
      await expect(store.passwordSetup.withdrawInvitations(user.id, now)).resolves.toBe(0);
    });

    test('consumeLink: exactly one of 10 racing callers gets the user; an expired link gives nobody', async () => {
      const user = await newUser();
      const now = new Date();
      await store.passwordSetup.saveLink({ token_hash: `race-${n}`, user_id: user.id, expires_at: new Date(now.getTime() + 60_000) });
      const results = await race(10, () => store.passwordSetup.consumeLink(`race-${n}`, now));
      expect(results.filter((id) => id !== undefined)).toEqual([user.id]);
      await store.passwordSetup.saveLink({ token_hash: `late-${n}`, user_id: user.id, expires_at: new Date(now.getTime() + 60_000) });
      await expect(store.passwordSetup.consumeLink(`late-${n}`, new Date(now.getTime() + 61_000))).resolves.toBeUndefined();
      await expect(store.passwordSetup.findLink(`late-${n}`, now)).resolves.toBe(user.id); // the refused consume spent nothing
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
      await expect(store.mfa.recoveryCodesLeft(user.id)).resolves.toBe(0);
    });
  });
}
