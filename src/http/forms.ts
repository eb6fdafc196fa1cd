/**
 * The pages' forms (sign-in pages, account page): small urlencoded posts, parsed with their limits (a form that
 * cannot be read, or holds text the service cannot keep, gets a readable page), and CSRF tokens bound to one flow
 * (an interaction, a recovery link, an account session): a keyed MAC of its id, so a token from another flow never fits.
 */
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import { PageError } from '../errors.js';
import { inputProblem } from '../domain/input-text.js';
import { secretsFrom } from '../domain/secrets.js';
import { readBody } from './read-body.js';

const LIMIT = 16 * 1024;

const refused = (status: number, message: string, cause?: unknown) =>
  new PageError(status, { title: 'error.form.title', heading: 'error.form.heading', message }, cause);

/** `limit`: larger only for the SAML answers an identity provider posts (the assertion consumer service). */
export function parseForm(limit = LIMIT) {
  const parse = readBody(koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: limit }), limit);
  return async function parseFormBody(ctx: Context, next: Next) {
    let parsed = false;
    try {
      await parse(ctx, async () => {
        parsed = true;
        if (inputProblem(ctx.request.body)) throw refused(400, 'error.form.bad_characters');
        await next();
      });
    } catch (error) {
      if (parsed) throw error;
      if ((error as { status?: number }).status === 413) throw refused(413, 'error.form.too_large', error);
      throw refused(400, 'error.form.unreadable', error);
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
