/** Answers 403 unless the request's API token carries the scope. */
import type { Context, Next } from 'koa';
import type { ApiTokenRow } from '../store/contract.js';
import type { ApiScope } from '../domain/api-tokens.js';
import { detail } from './errors.js';

export function requireScope(scope: ApiScope) {
  return async function checkScope(ctx: Context, next: Next) {
    const token = ctx.state.apiToken as ApiTokenRow;
    if (!token.scopes.includes(scope))
      throw detail(403, `You do not have permission to perform this action (the token lacks the ${scope} scope).`);
    await next();
  };
}
