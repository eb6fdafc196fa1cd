/**
 * Logs one line per request: method, path, final status, duration. The query string is never logged (it may
 * carry codes or tokens), and path segments that are secrets themselves (recovery-link tokens) are redacted.
 * A request that ends in an exception is logged with the status the client gets and the error with its stack.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

/** Paths whose segment is a bearer secret: whoever reads it can use it. */
const SECRET_SEGMENTS: RegExp[] = [/^(\/if\/recovery\/)[^/]+/];

export function loggablePath(path: string): string {
  return SECRET_SEGMENTS.reduce((shown, pattern) => shown.replace(pattern, '$1[redacted]'), path);
}

/** The status Koa answers for an error that escaped every handler. */
export const statusOf = (error: unknown): number => {
  const status = (error as { status?: unknown; statusCode?: unknown })?.status ?? (error as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
};

export function logRequests(logger: Logger) {
  // A request line is built here from four fields that never hold a secret, so it skips the logger's redaction
  // (a walk of every line for fields named like a secret: about 40 µs a line, a seventh of a JWKS request's CPU).
  // Failures keep it: their error may carry anything.
  const lines = logger.child({}, { redact: { paths: [] } });
  return async function logRequest(ctx: Context, next: Next) {
    const started = performance.now();
    const line = () => ({ method: ctx.method, path: loggablePath(ctx.path), ms: Math.round(performance.now() - started) });
    try {
      await next();
    } catch (error) {
      const status = statusOf(error);
      if (status >= 500) logger.error({ ...line(), status, err: error }, 'request failed');
      else if (lines.isLevelEnabled('info')) lines.info({ ...line(), status }, 'request');
      throw error;
    }
    // Nothing is built for a line that would not be written (log.level warn or above).
    if (lines.isLevelEnabled('info')) lines.info({ ...line(), status: ctx.status }, 'request');
  };
}
