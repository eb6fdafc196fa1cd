/**
 * The provisioning API at /api/v3/core and the delivery log at /api/v3/events. Everything under /api/ runs one
 * pipeline — JSON answers for unknown paths and methods, the OpenAPI document (no token), bearer auth, a
 * per-token rate limit, JSON body parsing, routes; errors are rendered in the API's shape by src/render-errors.ts.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { authenticate } from '../http/authenticate.js';
import { groupRoutes } from './groups.js';
import { parseJsonBody } from '../http/parse-json-body.js';
import { answerUnmatched } from './answer-unmatched.js';
import { userRoutes } from './users.js';
import { deliveryRoutes } from './deliveries.js';
import { auditRoutes } from './audit.js';
import type { Enqueue } from '../domain/deliveries.js';
import type { RateLimits } from '../domain/rate-limits.js';
import type { SendMail } from '../domain/mail.js';
import { Unavailable } from '../errors.js';
import { limitRequests } from '../http/limit-requests.js';
import { schemaRouter } from './serve-schema.js';
import { adminRouter } from './admin.js';

/** What the API hands on: the delivery queue (redeliver) and the mail queue (credential-change notices). */
export interface ApiServices {
  /** Omitted, redelivery answers 503. */
  enqueue?: Enqueue;
  /** Omitted, a credential change answers 503 and changes nothing (its notice cannot be queued). */
  sendMail?: SendMail;
}

const noMailQueue: SendMail = async () => {
  throw new Unavailable('The mail queue');
};

/** The routers behind the token (exported so a test can compare their routes with the OpenAPI document). */
export function apiRouters(store: Store, settings: Settings, services: ApiServices = {}): { core: Router; events: Router; admin: Router } {
  const { enqueue, sendMail = noMailQueue } = services;
  const core = new Router({ prefix: '/api/v3/core' });
  userRoutes(core, store, settings, sendMail);
  groupRoutes(core, store, settings);
  const events = new Router({ prefix: '/api/v3/events' });
  deliveryRoutes(events, store, settings, enqueue);
  auditRoutes(events, store, settings);
  return { core, events, admin: adminRouter(store, settings) };
}

export function apiMiddleware(store: Store, settings: Settings, limits: RateLimits, services: ApiServices): Middleware {
  const { core, events, admin } = apiRouters(store, settings, services);
  const schema = schemaRouter(settings.issuer.base_url);

  const pipeline: Middleware = compose<any>([
    answerUnmatched,
    // Before authenticate: the document needs no token. Its other methods fall through (401 without a token, else 405).
    schema.routes(),
    schema.allowedMethods(),
    authenticate(store),
    limitRequests(limits),
    parseJsonBody(settings.api.max_body_bytes),
    core.routes(),
    core.allowedMethods(),
    events.routes(),
    events.allowedMethods(),
    admin.routes(),
    admin.allowedMethods(),
  ]);
  return (ctx, next) => (ctx.path === '/api' || ctx.path.startsWith('/api/') ? pipeline(ctx, next) : next());
}
