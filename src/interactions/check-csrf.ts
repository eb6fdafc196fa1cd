/** Refuses a form post whose CSRF token does not belong to this interaction. */
import type { Next } from 'koa';
import type { CsrfTokens } from './csrf.js';
import { renderPage } from './render-page.js';
import type { InteractionContext } from './state.js';

export function checkCsrf(csrf: CsrfTokens) {
  return async function checkCsrf(ctx: InteractionContext, next: Next) {
    const { details } = ctx.state.interaction;
    if (!csrf.isValid(details.uid, ctx.request.body?.csrf)) {
      return renderPage(ctx as never, 'error', {
        title: 'Sign-in error',
        heading: 'This form has expired',
        message: 'Reload the sign-in page and try again.',
      }, 403);
    }
    return next();
  };
}
