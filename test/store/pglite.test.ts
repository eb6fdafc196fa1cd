import { openTestDatabase } from '../helpers/database.js';
import { runStoreConformance } from './conformance/index.js';

describe('store conformance: PGlite', () => {
  runStoreConformance(() => openTestDatabase('pglite'), { concurrentSessions: false });
});
