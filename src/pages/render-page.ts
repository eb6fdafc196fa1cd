/**
 * Renders views/*.eta (auto-escaped), in the reader's language (src/pages/language.ts), with the pages' security headers: a CSP that allows scripts, styles,
 * images and fetches from our origin only (the passkey script; never inline), and no framing.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { Context } from 'koa';
import type { Text } from '../i18n/messages.js';
import { pageLanguage } from './language.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** src/pages → ../../views; dist/src/pages → ../../../views. */
export const VIEWS_DIR =
  [path.resolve(here, '../../views'), path.resolve(here, '../../../views')].find((dir) => existsSync(path.join(dir, 'layout.eta'))) ??
  path.resolve(here, '../../views');

const eta = new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true, useWith: false });

// No form-action: a successful sign-in redirects to the application's own origin, which Chrome checks too.
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

/** `title` and the other messages a handler passes are catalogue keys (or Texts); the views translate them. */
export interface PageData {
  title: string | Text;
  [key: string]: unknown;
}

export function renderPage(ctx: Context, view: string, data: PageData, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('Cache-Control', 'no-store');
  // The views get the reader's translator (it.t, it.html), locale, dir and the language switcher's links.
  ctx.body = eta.render(`./${view}`, { ...data, ...pageLanguage(ctx) });
}
