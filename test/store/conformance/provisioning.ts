/** ProvisioningRepository: remote ids per application and kind, replaced by a later link, gone after unlink. */
import type { Store } from '../../../src/store/contract.js';
import { useDatabase, type Open } from './fixture.js';

export function runProvisioningConformance(open: Open): void {
  describe('provisioning', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });

    test('link, look up, relink, unlink; applications and kinds apart', async () => {
      const local = '6f1c2a3b-0000-4000-8000-000000000001';
      expect(await store.provisioning.remoteId('crm', 'User', local)).toBeUndefined();
      await store.provisioning.link('crm', 'User', local, 'remote-1');
      await store.provisioning.link('wiki', 'User', local, 'remote-w');
      await store.provisioning.link('crm', 'Group', local, 'remote-g');
      expect(await store.provisioning.remoteId('crm', 'User', local)).toBe('remote-1');
      await store.provisioning.link('crm', 'User', local, 'remote-2');
      expect(await store.provisioning.remoteId('crm', 'User', local)).toBe('remote-2');
      expect(await store.provisioning.remoteId('wiki', 'User', local)).toBe('remote-w');
      expect(await store.provisioning.remoteId('crm', 'Group', local)).toBe('remote-g');
      await store.provisioning.unlink('crm', 'User', local);
      expect(await store.provisioning.remoteId('crm', 'User', local)).toBeUndefined();
      expect(await store.provisioning.remoteId('crm', 'Group', local)).toBe('remote-g');
    });
  });
}
