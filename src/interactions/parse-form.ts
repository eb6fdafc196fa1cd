/**
 * Parses small urlencoded form posts (the sign-in pages send nothing else). A form that cannot be read (too
 * large, badly encoded) or holds text the service cannot keep (NUL characters) gets a readable page.
 */
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import { inputProblem } from '../domain/input-text.js';
import { readBody } from '../observability/read-body.js';
import { renderPage } from './render-page.js';

function refuse(ctx: Context, status: number, message: string) {
  renderPage(ctx, 'error', { title: 'Form not accepted', heading: 'This form could not be accepted', message }, status);
}

export function parseForm() {
  const parse = readBody(koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: '16kb' }));
  return async function parseFormBody(ctx: Context, next: Next) {
    let parsed = false;
    try {
      await parse(ctx, async () => {
        parsed = true;
        if (inputProblem(ctx.request.body)) return refuse(ctx, 400, 'It contained characters that cannot be used. Go back and try again.');
        await next();
      });
    } catch (error) {
      if (parsed) throw error;
      if ((error as { status?: number }).status === 413) return refuse(ctx, 413, 'It was too large. Go back and try again.');
      return refuse(ctx, 400, 'It could not be read. Go back and try again.');
    }
  };
}
