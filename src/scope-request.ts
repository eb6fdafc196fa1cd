/**
 * Opens every request's scope (request-scope.ts) with what it starts with, in one run:
 * - its id: the caller's X-Request-Id when it is a plain token (a proxy's or a load balancer's), else a new UUID;
 *   answered in X-Request-Id and added by the logger to every line written while the request runs;
 * - when it started (the read cache's fence);
 * - its acting party for the audit trail: an anonymous caller from its address until it is known better (the
 *   API's token check, a completed sign-in), so events recorded meanwhile carry the address and user agent.
 * One run, not one per value: every promise of the request pays for each scope it runs in.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { withinScope } from './request-scope.js';
import type { Actor } from './domain/audit.js';

const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

export function scopeRequests() {
  return function scopeRequest(ctx: Context, next: Next) {
    const given = ctx.get('X-Request-Id');
    const requestId = ACCEPTED.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', requestId);
    const actor: Actor = { type: 'anonymous', ip: ctx.ip, userAgent: ctx.get('User-Agent') || null };
    return withinScope({ requestId, startedAt: performance.now(), actor }, next);
  };
}
