/**
 * Parses small urlencoded form posts (the sign-in pages send nothing else). A form that cannot be read (too
 * large, badly encoded) or holds text the service cannot keep (NUL characters) is refused with a readable page.
 */
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import { PageError } from '../errors.js';
import { inputProblem } from '../domain/input-text.js';
import { readBody } from '../observability/read-body.js';

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
