/** Settings as the service would load them under NODE_ENV=test, with per-test overrides. */
import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSettings } from '../../src/settings/load.js';
import type { Settings } from '../../src/settings/schema.js';
import { TEMPLATE_DATA_DIR } from './paths.js';

export async function testSettings(overrides: Record<string, unknown> = {}): Promise<Settings> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'idp-test-'));
  return loadSettings({ overrides: { data_dir: dataDir, secrets: { key: 'k'.repeat(64) }, ...overrides } });
}

/**
 * A fresh data_dir whose embedded database is already migrated (a copy of the test template), for tests about
 * something else than a first start: initdb and every migration cost a process about 15 s of CPU.
 */
export function migratedDataDir(prefix = 'idp-test-'): string {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cpSync(TEMPLATE_DATA_DIR, path.join(dataDir, 'db'), { recursive: true });
  return dataDir;
}

/** An OpenID Connect source's entry in sources[] (its issuer is never reached unless a test serves one). */
export const oidcSource = (extra: Record<string, unknown> = {}) => ({
  slug: 'corp',
  type: 'oidc',
  name: 'Corp',
  issuer: 'https://login.corp.example',
  client_id: 'idp',
  client_secret: 'upstream-secret',
  ...extra,
});
