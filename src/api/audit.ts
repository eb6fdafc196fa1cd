/** /api/v3/events/audit/: the audit trail, filtered by user, application, action and time (scope audit:read). */
import type Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { listAudit } from '../domain/audit-view.js';
import { paginated, pageRequest, toPage } from './pagination.js';
import { requireScope } from '../http/require-scope.js';
import { auditListQuery } from './schemas.js';
import { validateQuery } from '../http/validate.js';

interface AuditQuery {
  page?: number;
  page_size?: number;
  user?: string;
  app?: string;
  action?: string;
  since?: string;
  until?: string;
}

export function auditRoutes(router: Router, store: Store, settings: Settings): void {
  router.get('/audit/', requireScope('audit:read'), async (ctx) => {
    const query = validateQuery<AuditQuery>(auditListQuery, ctx.query);
    const request = pageRequest(query, settings.api);
    const filter = {
      user: query.user,
      app: query.app,
      action: query.action,
      since: query.since ? new Date(query.since) : undefined,
      until: query.until ? new Date(query.until) : undefined,
    };
    const { total, results } = await listAudit(store, filter, toPage(request));
    ctx.body = paginated(ctx, settings.issuer.base_url, request, total, results);
  });
}
