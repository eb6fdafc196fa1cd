/** Composes the Koa application from its parts and runs it on the configured port. */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { Settings } from './settings/schema.js';
import type { Store } from './store/contract.js';
import { apiMiddleware } from './api/router.js';
import { healthRouter, type ReadinessCheck } from './observability/health.js';
import { logRequests } from './observability/request-log.js';
import { securityHeaders } from './observability/security-headers.js';
import { pinOrigin } from './observability/pin-origin.js';
import type { Oidc } from './oidc/setup.js';
import type { Enqueue } from './domain/deliveries.js';
import { createRateLimits, type RateLimits } from './domain/rate-limits.js';

export interface AppParts {
  settings: Settings;
  store: Store;
  logger: Logger;
  readiness?: ReadinessCheck[];
  /** OpenID Connect sign-in (built by setupOidc); omitted, the app serves only the API and health. */
  oidc?: Oidc;
  /** Queues a delivery again (redelivery from the API); omitted, redelivery answers 503. */
  enqueue?: Enqueue;
  /** Rate-limit counters (Redis in `idp serve`); omitted, in-process counters. */
  limits?: RateLimits;
}

export function createApp({ settings, store, logger, readiness = [], oidc, enqueue, limits = createRateLimits(settings) }: AppParts): Koa {
  // Behind proxies, the client address is the one the last `proxy_hops` proxies saw (X-Forwarded-For from the right).
  const app = new Koa({ proxy: settings.server.trust_proxy, maxIpsCount: settings.server.proxy_hops });
  app.silent = true; // errors are logged by the layers that render them
  pinOrigin(app, settings.issuer.base_url);
  const health = healthRouter([{ name: 'database', check: () => store.ping() }, ...readiness]);
  app.use(logRequests(logger.child({ component: 'http' })));
  app.use(securityHeaders(settings.issuer.base_url));
  app.use(health.routes());
  app.use(apiMiddleware(store, settings, logger.child({ component: 'api' }), limits, enqueue));
  if (oidc) {
    app.keys = oidc.cookieKeys; // must equal the providers' cookie keys
    for (const middleware of oidc.middleware) app.use(middleware);
  }
  return app;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export async function listen(app: Koa, host: string, port: number): Promise<RunningServer> {
  const server = app.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
