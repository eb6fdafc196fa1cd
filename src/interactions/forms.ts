/**
 * The sign-in pages' forms: small urlencoded posts, parsed with their limits (a form that cannot be read, or
 * holds text the service cannot keep, gets a readable page), and CSRF tokens bound to one interaction (or
 * recovery link): a keyed MAC of its id, so a token from another flow never fits.
 */
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import { PageError } from '../errors.js';
import { inputProblem } from '../domain/input-text.js';
import { secretsFrom } from '../domain/secrets.js';
import { readBody } from '../observability/read-body.js';
import type { InteractionContext } from './state.js';

const LIMIT = 16 * 1024;

const refused = (status: number, message: string, cause?: unknown) =>
  new PageError(status, { title: 'Form not accepted', heading: 'This form could not be accepted', message }, cause);

export function parseForm() {
  const parse = readBody(koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: LIMIT }), LIMIT);
  return async function parseFormBody(ctx: Context, next: Next) {
    let parsed = false;
    try {
      await parse(ctx, async () => {
        parsed = true;
        if (inputProblem(ctx.request.body)) throw refused(400, 'It contained characters that cannot be used. Go back and try again.');
        await next();
      });
    } catch (error) {
      if (parsed) throw error;
      if ((error as { status?: number }).status === 413) throw refused(413, 'It was too large. Go back and try again.', error);
      throw refused(400, 'It could not be read. Go back and try again.', error);
    }
  };
}

export function csrfTokens(secret: string) {
  const secrets = secretsFrom(secret);
  const tokenFor = (uid: string) => secrets.mac('csrf', uid);
  return {
    tokenFor,
    isValid: (uid: string, token: unknown): boolean => secrets.equal(token, tokenFor(uid)),
  };
}
export type CsrfTokens = ReturnType<typeof csrfTokens>;

/** Refuses a form post whose CSRF token does not belong to this interaction. */
export function checkCsrf(csrf: CsrfTokens) {
  return async function checkCsrf(ctx: InteractionContext, next: Next) {
    const { details, base } = ctx.state.interaction;
    if (!csrf.isValid(details.uid, ctx.request.body?.csrf)) {
      throw new PageError(403, {
        title: 'Sign-in error',
        heading: 'This form has expired',
        message: 'Reload the sign-in page and try again.',
        link: { href: base, label: 'Reload the sign-in page' },
      });
    }
    return next();
  };
}
