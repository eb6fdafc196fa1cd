/** /api/v3/events/deliveries/: the delivery log and redelivery (extension; operators expect both). */
import type Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { getDelivery, listDeliveries, redeliver, type Enqueue } from '../domain/deliveries.js';
import { detail } from './errors.js';
import { NotFoundError } from '../errors.js';
import { paginated, pageRequest, toPage } from './pagination.js';
import { groupPk } from './path-params.js';
import { requireScope } from '../http/require-scope.js';
import { deliveryListQuery } from './schemas.js';
import { validateQuery } from '../http/validate.js';

export function deliveryRoutes(router: Router, store: Store, settings: Settings, enqueue?: Enqueue): void {
  router.get('/deliveries/', requireScope('events:read'), async (ctx) => {
    const query = validateQuery<{ page?: number; page_size?: number; status?: 'pending' | 'delivered' | 'failed'; app?: string }>(
      deliveryListQuery,
      ctx.query,
    );
    const request = pageRequest(query, settings.api);
    const { total, results } = await listDeliveries(store, { status: query.status, app: query.app }, toPage(request));
    ctx.body = paginated(ctx, settings.issuer.base_url, request, total, results);
  });

  router.get('/deliveries/:id/', requireScope('events:read'), async (ctx) => {
    ctx.body = await getDelivery(store, groupPk(ctx.params.id));
  });

  router.post('/deliveries/:id/redeliver/', requireScope('events:write'), async (ctx) => {
    const id = groupPk(ctx.params.id);
    if (!enqueue) throw detail(503, 'Deliveries cannot be queued by this process.');
    try {
      ctx.body = await redeliver(store, id, enqueue);
    } catch (error) {
      if (error instanceof NotFoundError) throw error;
      throw detail(503, 'The delivery queue (Redis) is unavailable; try again shortly.', { 'Retry-After': '5' });
    }
    ctx.status = 202;
  });
}
