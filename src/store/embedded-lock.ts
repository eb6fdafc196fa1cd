/**
 * PGlite is a single-process database: two processes on one data folder would corrupt it. A pid file
 * next to it refuses a second opener with a message saying who holds it.
 */
import { readFileSync, unlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

export class EmbeddedDatabaseBusy extends Error {
  override name = 'EmbeddedDatabaseBusy';
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export function lockEmbeddedDatabase(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'db.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch {
      const holder = Number(readFileSync(file, 'utf8'));
      if (holder && holder !== process.pid && alive(holder)) {
        throw new EmbeddedDatabaseBusy(
          `the embedded database in ${dataDir} is in use by process ${holder}; stop it first, use the API, or set DATABASE_URL`,
        );
      }
      unlinkSync(file); // left by a process that died
    }
  }
  throw new EmbeddedDatabaseBusy(`could not lock the embedded database in ${dataDir}`);
}
