/**
 * The Koa application as a table of middleware, outermost first: request log, security headers, the one
 * error renderer, then the parts — health, the landing page, the API, SCIM, the pages' assets, the sign-in pages, the providers.
 * src/service.ts builds the parts and calls this; nothing else does.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import type { Logger } from 'pino';
import type { Settings } from './settings/schema.js';
import type { Store } from './store/contract.js';
import type { Enqueue } from './domain/deliveries.js';
import type { RateLimits } from './domain/rate-limits.js';
import type { SendMail } from './domain/mail.js';
import { apiMiddleware } from './api/router.js';
import { scimMiddleware } from './scim/router.js';
import { healthRouter, type ReadinessCheck } from './observability/health.js';
import { logRequests } from './observability/request-log.js';
import { securityHeaders } from './http/security-headers.js';
import { pinOrigin } from './http/pin-origin.js';
import { renderErrors } from './render-errors.js';
import { serveStatic } from './pages/serve-static.js';
import { serveAvatar } from './pages/serve-avatar.js';
import { landingRouter } from './pages/landing.js';
import { measureRequests } from './observability/measure-requests.js';
import { metricsRoute } from './observability/serve-metrics.js';
import { scopeRequests } from './request-scope.js';
import { localize } from './pages/language.js';
import { Messages } from './i18n/messages.js';

export interface AppParts {
  settings: Settings;
  store: Store;
  logger: Logger;
  limits: RateLimits;
  /** Checks beside the database's for /-/health/ready/ (Redis). */
  readiness: ReadinessCheck[];
  /** Queues a delivery again (redelivery from the API); omitted, redelivery answers 503. */
  enqueue?: Enqueue;
  /** Queues mail (the API's credential-change notices). */
  sendMail: SendMail;
  /** The sign-in pages (/if/…). */
  signIn: Middleware;
  /** The account page under /account/ and the admin console under /admin/. */
  account?: Middleware;
  /** The providers under /application/o/, and the cookie keys they sign with (the app must use the same). */
  oidc: { dispatch: Middleware; cookieKeys: string[] };
}

export function createApp({ settings, store, logger, limits, readiness, enqueue, sendMail, signIn, account, oidc }: AppParts): Koa {
  // Behind proxies, the client address is the one the last `proxy_hops` proxies saw (X-Forwarded-For from the right).
  const app = new Koa({ proxy: settings.server.trust_proxy, maxIpsCount: settings.server.proxy_hops });
  app.silent = true; // every error is rendered and logged by renderErrors
  app.keys = oidc.cookieKeys;
  pinOrigin(app, settings.issuer.base_url);
  const healthChecks = [{ name: 'database', check: () => store.probe() }, ...readiness];
  const health = healthRouter(healthChecks);
  app.use(scopeRequests());
  app.use(logRequests(logger.child({ component: 'http' })));
  app.use(measureRequests());
  app.use(securityHeaders(settings.issuer.base_url));
  app.use(localize(new Messages(settings.i18n)));
  app.use(renderErrors(logger.child({ component: 'http' })));
  const everythingElse = compose<Koa.Context>([
    health.routes(),
    metricsRoute(settings),
    landingRouter(settings, healthChecks).routes(),
    apiMiddleware(store, settings, limits, { enqueue, sendMail }),
    scimMiddleware(store, settings, limits),
    serveStatic(),
    serveAvatar,
    signIn,
    ...(account ? [account] : []),
  ] as Middleware[]);
  // The protocol's paths belong to the providers alone: they skip the other routers' matching (the hot paths).
  app.use((ctx, next) =>
    ctx.path.startsWith('/application/o/') ? oidc.dispatch(ctx, next) : everythingElse(ctx, () => oidc.dispatch(ctx, next)),
  );
  return app;
}

/** Listens on host:port (port 0: any free one) and resolves once it does. */
export async function listen(app: Koa, host: string, port: number): Promise<Server> {
  const server = app.listen(port, host);
  await once(server, 'listening');
  return server;
}

/** The URL a listening server answers on, e.g. http://127.0.0.1:9000. */
export function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** Stops accepting connections, lets requests in flight finish (at most `graceMs`), then closes what is left. */
export function stopListening(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections(); // keep-alive connections with no request: nothing to wait for
  });
}
