/** Zero-configuration runs keep a generated secret key in <data_dir>/secret.key (mode 0600). */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function ensureSecretKey(dataDir: string): string {
  const file = path.join(dataDir, 'secret.key');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const key = randomBytes(32).toString('hex');
    try {
      writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
      return key;
    } catch {
      return readFileSync(file, 'utf8').trim(); // another process won the race
    }
  }
}
