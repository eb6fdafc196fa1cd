/**
 * Times every request into idp_http_request_duration_seconds, labelled by route template (never the raw path:
 * ids and tokens in paths would make a series per request): the router's matched route, the engine's route
 * name, or a fixed name for the few prefixes served without a router.
 */
import type { Context, Next } from 'koa';
import { httpRequestDuration } from './metrics.js';

const PREFIXES: Array<[RegExp, string]> = [
  [/^\/metrics$/, '/metrics'],
  [/^\/-\/health\//, '/-/health/*'],
  [/^\/static\//, '/static/*'],
  [/^\/avatars\//, '/avatars/*'],
  [/^\/application\/o\//, '/application/o/*'],
];

export function routeTemplate(ctx: Context): string {
  // The engine's route name first: its own router's paths are relative to the application it serves.
  const engineRoute = (ctx as Context & { oidc?: { route?: string } }).oidc?.route;
  if (engineRoute) return `oidc:${engineRoute}`;
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  return PREFIXES.find(([pattern]) => pattern.test(ctx.path))?.[1] ?? 'unmatched';
}

export function measureRequests() {
  return async function measureRequest(ctx: Context, next: Next) {
    const stop = httpRequestDuration.startTimer();
    try {
      await next();
    } finally {
      // Errors are rendered further in (renderErrors), so ctx.status is already the answer's.
      stop({ method: ctx.method, route: routeTemplate(ctx), status: String(ctx.status) });
    }
  };
}
