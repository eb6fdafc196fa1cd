/**
 * What a request carries through every call it makes without passing it along, in one AsyncLocalStorage: its id
 * (for the log lines), when it started (the read cache answers from memory only what no change committed before
 * then could have altered) and its acting party (for the audit trail). One storage, opened once per request with
 * all three (`scopeRequests`): on Node 20 each live storage adds hooks that every promise of every request pays
 * for, and every scope run costs the request a copy.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';

interface Scope {
  requestId?: string;
  /** performance.now() when the request arrived. */
  startedAt?: number;
  /** The audit trail's acting party (src/domain/audit.ts reads and narrows it). */
  actor?: unknown;
}

const scope = new AsyncLocalStorage<Scope>();

/** Runs `work` with `values` added to the current scope (an inner scope never changes the outer one). */
export const withinScope = <T>(values: Scope, work: () => T): T => scope.run({ ...scope.getStore(), ...values }, work);

/** The current scope's value of `name`; undefined outside any request. */
export const fromScope = <K extends keyof Scope>(name: K): Scope[K] | undefined => scope.getStore()?.[name];

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Opens every request's scope with what it starts with:
 * - its id: the caller's X-Request-Id when it is a plain token (a proxy's or a load balancer's), else a new UUID;
 *   answered in X-Request-Id and added by the logger to every line written while the request runs;
 * - when it started (the read cache's fence);
 * - its acting party: an anonymous caller from its address until it is known better (the API's token check, a
 *   completed sign-in), so events recorded meanwhile carry the address and user agent.
 */
export function scopeRequests() {
  return function scopeRequest(ctx: Context, next: Next) {
    const given = ctx.get('X-Request-Id');
    const requestId = ACCEPTED_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', requestId);
    const actor = { type: 'anonymous', ip: ctx.ip, userAgent: ctx.get('User-Agent') || null };
    return withinScope({ requestId, startedAt: performance.now(), actor }, next);
  };
}
