/**
 * The store conformance suite on PostgreSQL, on each backend a process can run: the bare store, and the replica
 * cache in front of it (src/store/replica/), whose second client is a second replica with a cache of its own.
 */
import { openReplicaTestDatabase, openTestDatabase } from '../helpers/database.js';
import { runStoreConformance } from './conformance/index.js';

// PostgreSQL runs when TEST_DATABASE_URL points at a server (.ci/run sets it); without one, this says so.
const run = process.env.TEST_DATABASE_URL ? describe : describe.skip;

run('store conformance: PostgreSQL (TEST_DATABASE_URL)', () => {
  runStoreConformance(() => openTestDatabase('postgres'), { concurrentSessions: true });
});

run('store conformance: PostgreSQL behind the replica cache (two replicas)', () => {
  runStoreConformance(() => openReplicaTestDatabase('postgres'), { concurrentSessions: true });
});
