/** Settings as the service would load them under NODE_ENV=test, with per-test overrides. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSettings } from '../../src/settings/load.js';
import type { Settings } from '../../src/settings/schema.js';

export async function testSettings(overrides: Record<string, unknown> = {}): Promise<Settings> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'idp-test-'));
  return loadSettings({ overrides: { data_dir: dataDir, secrets: { key: 'k'.repeat(64) }, ...overrides } });
}
