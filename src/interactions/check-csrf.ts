/** The sign-in pages' forms carry a CSRF token bound to their interaction (src/http/forms.ts). */
import type { Next } from 'koa';
import { PageError } from '../errors.js';
import type { CsrfTokens } from '../http/forms.js';
import type { InteractionContext } from './state.js';

/** Refuses a form post whose CSRF token does not belong to this interaction. */
export function checkCsrf(csrf: CsrfTokens) {
  return async function checkCsrf(ctx: InteractionContext, next: Next) {
    const { details, base } = ctx.state.interaction;
    if (!csrf.isValid(details.uid, ctx.request.body?.csrf)) {
      throw new PageError(403, {
        title: 'sign_in.error_title',
        heading: 'sign_in.csrf.heading',
        message: 'sign_in.csrf.message',
        link: { href: base, label: 'sign_in.csrf.reload' },
      });
    }
    return next();
  };
}
