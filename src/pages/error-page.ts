/** Renders a PageError: the error view with its heading, message and way on, with the pages' headers. */
import type { Context } from 'koa';
import type { PageError } from '../errors.js';
import { renderPage } from './render-page.js';

export function renderErrorPage(ctx: Context, error: PageError): void {
  renderPage(
    ctx,
    'error',
    { title: error.title, heading: error.heading, message: error.text, link: error.link, code: error.code },
    error.status,
  );
  ctx.set(error.headers);
}
