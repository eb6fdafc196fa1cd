/** Unknown API paths and methods answer in the API's JSON shape, like every other API error. */
import type { Context, Next } from 'koa';
import { detail, notFound } from './errors.js';

export async function answerUnmatched(ctx: Context, next: Next) {
  await next();
  if (ctx.status === 404 && ctx.body === undefined) throw notFound();
  if (ctx.status === 405 && !ctx.body)
    throw detail(405, `Method "${ctx.method}" not allowed.`, { Allow: String(ctx.response.get('Allow')) });
}
