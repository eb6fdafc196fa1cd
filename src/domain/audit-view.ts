/** The audit trail as the API and the CLI show it: newest first, times in ISO 8601. */
import type { AuditFilter, AuditRow, Page, Store } from '../store/contract.js';

export interface AuditView {
  id: string;
  at: string;
  action: string;
  actor: { type: string; id: string | null };
  user: string | null;
  app: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

const toView = (row: AuditRow): AuditView => ({
  id: String(row.id),
  at: row.at.toISOString(),
  action: row.action,
  actor: { type: row.actor_type, id: row.actor },
  user: row.user_uuid,
  app: row.app,
  ip: row.ip,
  user_agent: row.user_agent,
  details: row.details,
});

export async function listAudit(store: Store, filter: AuditFilter, page: Page): Promise<{ total: number; results: AuditView[] }> {
  const { total, rows } = await store.audit.list(filter, page);
  return { total, results: rows.map(toView) };
}
