/**
 * Renders views/*.eta (auto-escaped) with the pages' security headers: a CSP that allows scripts, styles,
 * images and fetches from our origin only (the passkey script; never inline), and no framing.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { Context } from 'koa';

const here = path.dirname(fileURLToPath(import.meta.url));
/** src/pages → ../../views; dist/src/pages → ../../../views. */
export const VIEWS_DIR =
  [path.resolve(here, '../../views'), path.resolve(here, '../../../views')].find((dir) => existsSync(path.join(dir, 'layout.eta'))) ??
  path.resolve(here, '../../views');

const eta = new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true, useWith: false });

// No form-action: a successful sign-in redirects to the application's own origin, which Chrome checks too.
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

export interface PageData {
  title: string;
  [key: string]: unknown;
}

export function renderPage(ctx: Context, view: string, data: PageData, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = eta.render(`./${view}`, data);
}
