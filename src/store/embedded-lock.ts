/**
 * PGlite is a single-process database: two processes on one data folder would corrupt it. A pid file
 * next to it refuses a second opener with a message saying who holds it. Writing that file is the first write of
 * the embedded database: a folder it cannot write to stops the start here, with the cause.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeDataDir, unwritableDataDir } from '../settings/data-dir.js';

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

/** A data directory the embedded database cannot write to (read-only, no permission, full) stops the start with one line. */
const CONSEQUENCE =
  'the embedded database keeps its files there; make it writable, set IDP_DATA_DIR to another folder, or set DATABASE_URL';

export function lockEmbeddedDatabase(dataDir: string): () => void {
  makeDataDir(dataDir, CONSEQUENCE);
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
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritableDataDir(dataDir, error, CONSEQUENCE);
      const holder = Number(readFileSync(file, 'utf8'));
      if (holder && holder !== process.pid && alive(holder)) {
        throw new EmbeddedDatabaseBusy(
          `the embedded database in ${dataDir} is in use by process ${holder}; stop it first, use the API, or set DATABASE_URL`,
        );
      }
      try {
        unlinkSync(file); // left by a process that died
      } catch (error) {
        throw unwritableDataDir(dataDir, error, CONSEQUENCE);
      }
    }
  }
  throw new EmbeddedDatabaseBusy(`could not lock the embedded database in ${dataDir}`);
}
