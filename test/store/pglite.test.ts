import { openTestDatabase } from '../helpers/database.js';
import { runStoreConformance } from './conformance.js';

describe('store conformance: PGlite', () => {
  runStoreConformance(() => openTestDatabase('pglite'));
});
