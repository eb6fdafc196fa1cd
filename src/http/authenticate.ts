/**
 * Resolves `Authorization: Bearer <API token>` to a usable token (the acting party of the request), or answers 401.
 * Shared by the API and SCIM, each of which renders the refusal in its own shape (src/render-errors.ts).
 */
import type { Context, Next } from 'koa';
import type { Store } from '../store/contract.js';
import { authenticateApiToken } from '../domain/api-tokens.js';
import { actAs } from '../domain/audit.js';
import { AppError } from '../errors.js';

const challenge = { 'WWW-Authenticate': 'Bearer realm="api"' };
const refused = (message: string) => new AppError(message, { status: 401, headers: challenge });

export function authenticate(store: Store) {
  return async function authenticateToken(ctx: Context, next: Next) {
    const header = ctx.get('Authorization');
    if (!header) throw refused('Authentication credentials were not provided.');
    const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
    if (!match) throw refused('Invalid token header. Use "Authorization: Bearer <token>".');
    const token = await authenticateApiToken(store, match[1]!);
    if (!token) throw refused('Invalid token.');
    ctx.state.apiToken = token;
    // Every change this request makes is audited as this token's, from this address.
    await actAs({ type: 'api_token', id: String(token.id), ip: ctx.ip, userAgent: ctx.get('User-Agent') || null }, next);
  };
}
