import { openTestDatabase } from '../helpers/database.js';
import { runStoreConformance } from './conformance/index.js';

// PostgreSQL runs when TEST_DATABASE_URL points at a server (.ci/run sets it); without one, this says so.
const run = process.env.TEST_DATABASE_URL ? describe : describe.skip;

run('store conformance: PostgreSQL (TEST_DATABASE_URL)', () => {
  runStoreConformance(() => openTestDatabase('postgres'), { concurrentSessions: true });
});
