/** Store.sweepExpired: counts per kind, and only rows whose expiry is before `now` go (habit 8: cleanup is contract). */
import type { OidcPayload } from '../../../src/store/contract.js';
import { useDatabase, type Open } from './fixture.js';

const payload = (id: string, expires_at: Date | null): Omit<OidcPayload, 'consumed_at'> => ({
  model: 'Session',
  id,
  payload: { jti: id },
  grant_id: null,
  user_code: null,
  uid: null,
  account_id: null,
  client_id: null,
  expires_at,
});

export function runSweepConformance(open: Open): void {
  describe('sweepExpired', () => {
    const t = useDatabase(open);

    test('returns how many rows of each kind it deleted, and deletes only those expired before now', async () => {
      const { store } = t;
      const now = new Date('2032-03-04T05:06:07Z');
      const before = new Date(now.getTime() - 1);
      const after = new Date(now.getTime() + 1000);
      const user = await store.users.insert({ username: 'sweeper@example.com', email: 'sweeper@example.com', name: 'Sweeper' });

      for (const id of ['old-1', 'old-2', 'old-3']) await store.oidcPayloads.upsert(payload(id, before));
      await store.oidcPayloads.upsert(payload('at-now', now)); // expires at `now`, not before it: stays
      await store.oidcPayloads.upsert(payload('later', after));
      await store.oidcPayloads.upsert(payload('forever', null));
      await store.passwordSetup.saveCode({ id: 'code-old', user_id: user.id, code_hash: 'h', expires_at: before });
      await store.passwordSetup.saveCode({ id: 'code-later', user_id: user.id, code_hash: 'h', expires_at: after });
      await store.passwordSetup.saveLink({ token_hash: 'link-old-1', user_id: user.id, expires_at: before });
      await store.passwordSetup.saveLink({ token_hash: 'link-old-2', user_id: user.id, expires_at: before });
      await store.passwordSetup.saveLink({ token_hash: 'link-later', user_id: user.id, expires_at: after });

      expect(await store.sweepExpired(now)).toEqual({
        oidcPayloads: 3,
        passwordSetup: 3,
        challenges: 0,
        emailChanges: 0,
        sessionDevices: 0,
      });
      expect(await store.sweepExpired(now)).toEqual({
        oidcPayloads: 0,
        passwordSetup: 0,
        challenges: 0,
        emailChanges: 0,
        sessionDevices: 0,
      });

      const findAt = (id: string, at: Date) => store.oidcPayloads.find('Session', id, at);
      expect(await findAt('old-1', new Date(0))).toBeUndefined(); // gone, not merely invisible
      for (const id of ['later', 'forever']) expect(await findAt(id, now)).toBeDefined();
      expect(await findAt('at-now', new Date(0))).toBeDefined();
      await expect(store.passwordSetup.findCode('code-old')).resolves.toBeUndefined();
      await expect(store.passwordSetup.findCode('code-later')).resolves.toBeDefined();
      await expect(store.passwordSetup.findLink('link-later', now)).resolves.toBe(user.id);
      expect(await store.passwordSetup.findLink('link-old-1', new Date(0))).toBeUndefined();

      // Sweeping later takes the rest that has expired by then, and never the rows without expiry.
      expect(await store.sweepExpired(new Date(after.getTime() + 1))).toEqual({
        oidcPayloads: 2,
        passwordSetup: 2,
        challenges: 0,
        emailChanges: 0,
        sessionDevices: 0,
      });
      expect(await findAt('forever', new Date())).toBeDefined();
    });

    test("a session's browser is noted once and seen again; swept once its session is gone and it has not been seen for a minute", async () => {
      const { store } = t;
      const now = new Date();
      const user = '7b0a2d4e-1c3f-4a5b-8c6d-9e0f1a2b3c4d';
      await store.oidcPayloads.upsert({ ...payload('live-session', new Date(now.getTime() + 3600_000)), account_id: user });
      await store.sessionDevices.seen('live-session', user, 'Firefox', new Date(now.getTime() - 120_000));
      await store.sessionDevices.seen('live-session', user, 'Something else', now);
      await store.sessionDevices.seen('gone-session', user, 'Safari', new Date(now.getTime() - 120_000));
      await store.sessionDevices.seen('gone-just-now', user, 'Edge', now);
      const rows = await store.sessionDevices.list(['live-session', 'gone-session', 'never']);
      expect(rows.find((row) => row.session_id === 'live-session')).toMatchObject({
        user_uuid: user,
        user_agent: 'Firefox', // the first sight's
        first_seen: new Date(now.getTime() - 120_000),
        last_seen: now,
      });
      expect(rows).toHaveLength(2);
      expect((await store.sweepExpired(now)).sessionDevices).toBe(1); // gone-session only
      expect(
        (await store.sessionDevices.list(['live-session', 'gone-session', 'gone-just-now'])).map((row) => row.session_id).sort(),
      ).toEqual(['gone-just-now', 'live-session']);
      expect(await store.sessionDevices.list([])).toEqual([]);
      // Leave nothing for the tests that count what a sweep takes.
      await store.oidcPayloads.destroy('Session', 'live-session');
      expect(await store.sessionDevices.sweep(new Date(now.getTime() + 60_000))).toBe(2);
    });

    test('the kinds are counted apart: payloads alone, setup rows alone', async () => {
      const { store } = t;
      const now = new Date('2033-01-01T00:00:00Z');
      await store.oidcPayloads.upsert(payload('alone', new Date(now.getTime() - 1000)));
      expect(await store.sweepExpired(now)).toEqual({
        oidcPayloads: 1,
        passwordSetup: 0,
        challenges: 0,
        emailChanges: 0,
        sessionDevices: 0,
      });
      const user = await store.users.insert({ username: 'sweeper2@example.com', email: 'sweeper2@example.com', name: 'Sweeper' });
      await store.passwordSetup.saveLink({ token_hash: 'alone', user_id: user.id, expires_at: new Date(now.getTime() - 1000) });
      expect(await store.sweepExpired(now)).toEqual({
        oidcPayloads: 0,
        passwordSetup: 1,
        challenges: 0,
        emailChanges: 0,
        sessionDevices: 0,
      });
    });
  });
}
