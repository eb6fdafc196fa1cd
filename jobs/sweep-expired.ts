/**
 * Deletes expired OIDC rows and password-setup codes, and audit events past audit.retention_days, periodically;
 * the store hides expired rows before that, so this is housekeeping only.
 */
import type { Logger } from 'pino';
import type { Store } from '../src/store/contract.js';
import { pruneAudit } from '../src/domain/audit.js';

export async function sweepOnce(store: Store, auditRetentionDays: number, now = new Date()) {
  return { ...(await store.sweepExpired(now)), auditEvents: await pruneAudit(store, auditRetentionDays, now) };
}

export function startSweeping(store: Store, logger: Logger, auditRetentionDays: number, everyMs = 10 * 60_000): () => void {
  const timer = setInterval(() => {
    sweepOnce(store, auditRetentionDays)
      .then((counts) => {
        if (counts.oidcPayloads || counts.auditEvents) logger.info(counts, 'expired rows swept');
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'sweeping expired rows failed'));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
