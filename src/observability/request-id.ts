/**
 * A request id for every request: the caller's X-Request-Id when it is a plain token (a proxy's or a load
 * balancer's), else a new UUID. It is answered in X-Request-Id and, through the request scope, added by the
 * logger to every line written while the request runs (src/observability/logger.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { withinScope } from '../request-scope.js';

const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

export function assignRequestId() {
  return function withRequestId(ctx: Context, next: Next) {
    const given = ctx.get('X-Request-Id');
    const requestId = ACCEPTED.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', requestId);
    return withinScope({ requestId, startedAt: performance.now() }, next);
  };
}
