/** Deletes expired OIDC rows periodically; the store hides them before that, so this is housekeeping only. */
import type { Logger } from 'pino';
import type { Store } from '../src/store/contract.js';

export function startSweeping(store: Store, logger: Logger, everyMs = 10 * 60_000): () => void {
  const timer = setInterval(() => {
    store.sweepExpired(new Date())
      .then((counts) => {
        if (counts.oidcPayloads) logger.info(counts, 'expired rows swept');
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'sweeping expired rows failed'));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
