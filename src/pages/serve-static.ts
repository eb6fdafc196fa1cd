/** GET /static/style.css: the pages' one stylesheet, read once. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';
import { VIEWS_DIR } from './render-page.js';

export function serveStatic() {
  const css = readFileSync(path.join(VIEWS_DIR, 'static', 'style.css'));
  return async function serveStyle(ctx: Context, next: Next) {
    if (ctx.path !== '/static/style.css' || !['GET', 'HEAD'].includes(ctx.method)) return next();
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = css;
  };
}
