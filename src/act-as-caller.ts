/**
 * Every request acts, for the audit trail, as an anonymous caller from its address until it is known better
 * (the API's token check, a completed sign-in): events recorded meanwhile carry the address and user agent.
 */
import type { Context, Next } from 'koa';
import { actAs } from './domain/audit.js';

export function actAsCaller() {
  return function withCaller(ctx: Context, next: Next) {
    return actAs({ type: 'anonymous', ip: ctx.ip, userAgent: ctx.get('User-Agent') || null }, next);
  };
}
