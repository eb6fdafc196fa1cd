/** Zero-configuration runs keep a generated secret key in <data_dir>/secret.key (mode 0600). */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeDataDir, unwritableDataDir } from './data-dir.js';

export function ensureSecretKey(dataDir: string): string {
  const file = path.join(dataDir, 'secret.key');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const consequence = 'a generated secret key is kept there; make it writable, set IDP_DATA_DIR to another folder, or set SECRET_KEY';
    makeDataDir(dataDir, consequence);
    const key = randomBytes(32).toString('hex');
    try {
      writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritableDataDir(dataDir, error, consequence);
      return readFileSync(file, 'utf8').trim(); // another process won the race
    }
  }
}
