/** Answers 403 unless the request's API token carries the scope. */
import type { Context, Next } from 'koa';
import type { ApiTokenRow } from '../store/contract.js';
import type { ApiScope } from '../domain/api-tokens.js';
import { AppError } from '../errors.js';

/** Throws 403 unless the token carries `scope`; `forWhat` names a part of a request that needs it. */
export function assertScope(ctx: Context, scope: ApiScope, forWhat?: string): void {
  const token = ctx.state.apiToken as ApiTokenRow;
  if (!token.scopes.includes(scope)) {
    const needs = forWhat ? `the token lacks the ${scope} scope, which ${forWhat} needs` : `the token lacks the ${scope} scope`;
    throw new AppError(`You do not have permission to perform this action (${needs}).`, { status: 403 });
  }
}

export function requireScope(scope: ApiScope) {
  return async function checkScope(ctx: Context, next: Next) {
    assertScope(ctx, scope);
    await next();
  };
}
