import { openTestDatabase } from '../helpers/database.js';
import { runStoreConformance } from './conformance.js';
import { runOidcPayloadsConformance } from './oidc-payloads.conformance.js';

describe('store conformance: PGlite', () => {
  runStoreConformance(() => openTestDatabase('pglite'));
  runOidcPayloadsConformance(() => openTestDatabase('pglite'));
});
