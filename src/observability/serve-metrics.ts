/**
 * /metrics for Prometheus, restricted as configured (metrics.*): a bearer token when one is set; without one,
 * loopback callers only, and never behind a trusted proxy (whose own address would be the loopback caller).
 * With metrics.port the main listener does not serve it; a listener of its own does (with the health routes).
 */
import { once } from 'node:events';
import http, { type Server } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Settings } from '../settings/schema.js';
import { registry } from './metrics.js';
import { healthAnswer, INSTANCE_HEADER, INSTANCE_ID, type ReadinessCheck } from './health.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether a caller with this Authorization header and peer address may read the metrics. */
function allowed(
  settings: Settings['metrics'],
  authorization: string | undefined,
  peer: string | undefined,
  behindProxy: boolean,
): boolean {
  if (settings.token) {
    const given = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
    return timingSafeEqual(digest(given), digest(settings.token));
  }
  return !behindProxy && peer !== undefined && LOOPBACK.has(peer);
}

async function exposition(): Promise<{ type: string; body: string }> {
  return { type: registry.contentType, body: await registry.metrics() };
}

/** The main listener's /metrics (404 when disabled, moved to its own port, or the caller may not read it). */
export function metricsRoute(settings: Settings) {
  const servedHere = settings.metrics.enabled && settings.metrics.port === 0;
  return async function serveMetrics(ctx: Context, next: Next) {
    if (ctx.path !== '/metrics' || ctx.method !== 'GET' || !servedHere) return next();
    if (!allowed(settings.metrics, ctx.get('Authorization'), ctx.socket.remoteAddress, settings.server.trust_proxy)) return next();
    const { type, body } = await exposition();
    ctx.set('Content-Type', type);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  };
}

const HEALTH_ROUTES: Record<string, 'live' | 'ready'> = { '/-/health/live/': 'live', '/-/health/ready/': 'ready' };

/**
 * The separate metrics listener, when metrics.port is set; resolves once it listens. It also answers the health
 * routes with `checks` (unauthenticated, as on the main listener): `idp worker` has no other listener, and this is
 * its health check (compose.yaml).
 */
export async function startMetricsServer(settings: Settings, checks: ReadinessCheck[] = []): Promise<Server | undefined> {
  if (!settings.metrics.enabled || settings.metrics.port === 0) return undefined;
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const health = HEALTH_ROUTES[path];
    if (health && req.method === 'GET') {
      const { status, body } = await healthAnswer(health, checks);
      res
        .writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', [INSTANCE_HEADER]: INSTANCE_ID })
        .end(JSON.stringify(body));
      return;
    }
    // A listener of its own is for a scraper on a private network: the token is its only gate, when set.
    const refused = settings.metrics.token !== '' && !allowed(settings.metrics, req.headers.authorization, req.socket.remoteAddress, false);
    if (path !== '/metrics' || req.method !== 'GET' || refused) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found');
      return;
    }
    const { type, body } = await exposition();
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(body);
  });
  server.listen(settings.metrics.port, settings.server.host);
  await once(server, 'listening');
  return server;
}
