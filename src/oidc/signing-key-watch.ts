/**
 * Notices rotated signing keys, of any algorithm, and a key created for an algorithm newly in use: reads the stored
 * key ids (active first) and, when they differ from the set in use, decrypts the keys and hands them to `apply`.
 * `idp keys rotate` only writes the table; every running process finds the change here, on a timer (`every`) or
 * when asked (`check`).
 */
import type { Logger } from 'pino';
import type { Store } from '../store/contract.js';
import { loadSigningKeys, type SigningJwk } from '../domain/signing-keys.js';

export interface SigningKeyWatch {
  /** The kids in use, active first; empty until a set was applied. */
  readonly kids: readonly string[];
  /** Compares the stored kids with those in use and applies a changed set; true when it did. Concurrent calls share one check. */
  check(): Promise<boolean>;
  /** Checks every `seconds` (0: never) until the returned stop, which waits for a check under way. */
  every(seconds: number): () => Promise<void>;
}

export interface SigningKeyWatchParts {
  store: Store;
  /** secrets.key: the stored keys are sealed with it. */
  secret: string;
  /** The kids of the set the caller already runs with (active first). */
  current: readonly string[];
  /** Starts using `keys`; throws to keep the set in use (the next check tries again). */
  apply(keys: SigningJwk[]): void;
  logger: Logger;
}

const sameKids = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((kid, i) => kid === b[i]);

export function signingKeyWatch(parts: SigningKeyWatchParts): SigningKeyWatch {
  const { store, secret, logger } = parts;
  let kids: readonly string[] = [...parts.current];
  let running: Promise<boolean> | undefined;

  async function compareAndApply(): Promise<boolean> {
    // Only the ids are compared: the keys are decrypted (and the providers rebuilt) when they changed.
    const stored = (await store.signingKeys.list()).map((row) => row.kid);
    if (sameKids(stored, kids)) return false;
    // Nothing stored while keys are in use: keys are never deleted, so this is not a rotation; keep signing.
    if (!stored.length) return false;
    const keys = await loadSigningKeys(store, secret);
    // The order decides the signing key (the engine signs with the first): compare what was decrypted, not the first read.
    const loaded = keys.map((key) => key.kid);
    if (sameKids(loaded, kids)) return false;
    parts.apply(keys);
    const previous = kids;
    kids = loaded;
    // The engine signs with the first key of each algorithm (the active one: the store lists those first).
    const signing = Object.fromEntries([...keys].reverse().map((key) => [key.alg, key.kid]));
    logger.info({ signing, published: loaded, previous }, 'signing keys changed: signing with the new active keys');
    return true;
  }

  const watch: SigningKeyWatch = {
    get kids() {
      return kids;
    },
    check() {
      running ??= compareAndApply().finally(() => {
        running = undefined;
      });
      return running;
    },
    every(seconds) {
      if (seconds <= 0) return async () => {};
      let stopped = false;
      let failing = false;
      let timer: NodeJS.Timeout | undefined;
      const tick = async () => {
        try {
          await watch.check();
          if (failing) logger.info('signing keys can be read again');
          failing = false;
        } catch (error) {
          // A database outage or a key this secrets.key cannot open: keep the keys in use, say so once per streak.
          if (!failing) logger.warn({ err: error }, 'checking the stored signing keys failed; still signing with the keys in use');
          failing = true;
        }
        if (!stopped) schedule();
      };
      const schedule = () => {
        // One check after the other (never overlapping), and never what keeps the process alive.
        timer = setTimeout(() => void tick(), seconds * 1000);
        timer.unref();
      };
      schedule();
      return async () => {
        stopped = true;
        clearTimeout(timer);
        // A check under way must not outlive the store the caller is about to close.
        await running?.catch(() => {});
      };
    },
  };
  return watch;
}
