/**
 * The store conformance suite on PGlite, on each backend a process can run: the bare store, and the replica cache
 * in front of it (src/store/replica/), which is what `idp serve` runs. A decorator is a backend (STYLE.md).
 */
import { openReplicaTestDatabase, openTestDatabase } from '../helpers/database.js';
import { runStoreConformance } from './conformance/index.js';

describe('store conformance: PGlite', () => {
  runStoreConformance(() => openTestDatabase('pglite'), { concurrentSessions: false });
});

describe('store conformance: PGlite behind the replica cache', () => {
  runStoreConformance(() => openReplicaTestDatabase('pglite'), { concurrentSessions: false });
});
