/** docs/configuration.md is generated from the schema; it must match what the loader accepts today. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configReference } from '../../src/settings/reference.js';
import { ROOT } from '../helpers/paths.js';

test('docs/configuration.md is up to date (regenerate: npm run idp -- config reference > docs/configuration.md)', () => {
  const generated = configReference(path.join(ROOT, 'config'));
  expect(readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8')).toBe(generated);
  expect(generated).toContain('| `tokens.access_token_ttl` | an integer ≥ 1 | `300` |');
  expect(generated).toContain('`DATABASE_URL`');
});
