/** The data directory (`data_dir`) is written to at start (secret key, embedded database): when it cannot be, one line says which folder and why. */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './validate.js';

/** e.g. `config: data_dir /srv/idp cannot be written (read-only file system, EROFS): the embedded database keeps its files there; …` */
export function unwritableDataDir(dataDir: string, error: unknown, consequence: string): ConfigError {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  // Node words a file system error as "EROFS: read-only file system, open '/srv/idp/db.lock'": the middle part is the cause.
  const cause = /^[A-Z0-9]+: ([^,]+)/.exec(message ?? '')?.[1] ?? message ?? String(error);
  return new ConfigError(
    `config: data_dir ${path.resolve(dataDir)} cannot be written (${cause}${code ? `, ${code}` : ''}): ${consequence}`,
  );
}

/**
 * Creates the data directory and its missing parents, one at a time: Node's recursive mkdir answers ENOENT where the
 * cause is a read-only or forbidden parent, and the operator needs the cause.
 */
export function makeDataDir(dataDir: string, consequence: string): void {
  const make = (dir: string): void => {
    if (existsSync(dir)) return;
    make(path.dirname(dir));
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // made by another process meanwhile
    }
  };
  try {
    make(path.resolve(dataDir));
  } catch (error) {
    throw unwritableDataDir(dataDir, error, consequence);
  }
}
