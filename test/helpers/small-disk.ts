/**
 * A small file system of the test's own, to fill up or make read-only for real: a tmpfs mounted on a temporary
 * folder (root only; `canMount` says whether this process may). Whatever runs on it then meets ENOSPC or EROFS
 * exactly as on a full or read-only disk — no mock in between. `unmount()` belongs in afterAll: it removes the
 * mount and its folder whatever happened.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Mounting needs root; the tests that need it are skipped otherwise (and say so in their name). */
export const canMount = process.getuid?.() === 0;

export interface SmallDisk {
  /** The mount point (mode 0777, so a cluster run as the postgres user can live there too). */
  dir: string;
  /** Takes every free byte with one file. */
  fill(): void;
  /** Deletes that file: room again. */
  free(): void;
  /** Remounts the file system read-only: every write then fails with EROFS. */
  readOnly(): void;
  unmount(): void;
}

export function mountSmallDisk(megabytes: number): SmallDisk {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'idp-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0777`, 'tmpfs', dir]);
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        // Large writes first, then smaller ones, until not even one byte fits.
        for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
          const chunk = Buffer.alloc(size, 1);
          try {
            for (;;) writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free: () => unlinkSync(filler),
    readOnly: () => execFileSync('mount', ['-o', 'remount,ro', dir]),
    unmount() {
      try {
        execFileSync('umount', [dir]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
