/** Logs one line per request: method, path (no query string: it may carry codes or tokens), status, duration. */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

export function logRequests(logger: Logger) {
  return async function logRequest(ctx: Context, next: Next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) }, 'request');
    }
  };
}
