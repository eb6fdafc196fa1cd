/** JSON bodies only: other media types get 415, oversize 413 and malformed or badly encoded JSON 400. */
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import { AppError } from '../errors.js';
import { readBody } from './read-body.js';

const hasBody = (ctx: Context) => Boolean(ctx.get('Transfer-Encoding')) || Number(ctx.get('Content-Length') || 0) > 0;

export function parseJsonBody(maxBytes: number) {
  const parse = readBody(
    koaBody({
      json: true,
      urlencoded: false,
      text: false,
      multipart: false,
      jsonStrict: true,
      // Every JSON media type the check below lets through (application/scim+json among them) is parsed as JSON.
      jsonTypes: ['application/json', '+json'],
      jsonLimit: maxBytes,
      parsedMethods: ['POST', 'PUT', 'PATCH'] as never,
    }),
    maxBytes,
  );
  return async function parseBody(ctx: Context, next: Next) {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return next();
    if (!hasBody(ctx)) {
      ctx.request.body = {};
      return next();
    }
    if (!ctx.is('application/json', '+json')) {
      throw new AppError(`Unsupported media type "${ctx.get('Content-Type') || '(none)'}" in request. Send application/json.`, {
        status: 415,
      });
    }
    return parse(ctx, next);
  };
}
