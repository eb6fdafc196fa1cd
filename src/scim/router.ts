/**
 * The SCIM 2.0 server at /scim/v2 (RFC 7644) for Entra ID, Okta and HR systems. One pipeline, as the API's: SCIM
 * answers for unknown paths and methods, the API token check (the same tokens; the `scim` scope), the per-token
 * rate limit, JSON bodies (application/scim+json included), then the routes. Errors leave in SCIM's shape through
 * src/render-errors.ts (scim/errors.ts).
 */
import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import type { RateLimits } from '../domain/rate-limits.js';
import { authenticate } from '../http/authenticate.js';
import { requireScope } from '../http/require-scope.js';
import { limitRequests } from '../http/limit-requests.js';
import { parseJsonBody } from '../http/parse-json-body.js';
import { isScimPath, SCIM_MEDIA_TYPE, scimError } from './errors.js';
import { discoveryRoutes } from './discovery.js';
import { userRoutes } from './users.js';
import { groupRoutes } from './groups.js';

/** Every answer is application/scim+json and never cached; unmatched paths and methods answer in SCIM's shape. */
async function answerScim(ctx: Context, next: Next) {
  await next();
  if (ctx.status === 404 && ctx.body == null) throw scimError(404, undefined, 'There is no SCIM endpoint at this path.');
  if ((ctx.status === 405 || ctx.status === 501) && !ctx.body) {
    throw scimError(ctx.status, undefined, `Method "${ctx.method}" not allowed.`, { Allow: String(ctx.response.get('Allow')) });
  }
  if (ctx.body && typeof ctx.body === 'object') ctx.type = SCIM_MEDIA_TYPE;
  ctx.set('Cache-Control', 'no-store');
}

/** The routes behind the token (exported for tests that list them). */
export function scimRouter(store: Store, settings: Settings): Router {
  const router = new Router({ prefix: '/scim/v2' });
  discoveryRoutes(router, settings);
  userRoutes(router, store, settings);
  groupRoutes(router, store, settings);
  return router;
}

export function scimMiddleware(store: Store, settings: Settings, limits: RateLimits): Middleware {
  const router = scimRouter(store, settings);
  const pipeline: Middleware = compose<any>([
    answerScim,
    authenticate(store),
    requireScope('scim'),
    limitRequests(limits),
    parseJsonBody(settings.api.max_body_bytes),
    router.routes(),
    router.allowedMethods(),
  ]);
  return (ctx, next) => (isScimPath(ctx.path) ? pipeline(ctx, next) : next());
}
