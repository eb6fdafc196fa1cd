/**
 * Runs a body parser (koa-body) so that a body it cannot read is the client's fault, not a 500: a corrupt
 * gzip/deflate/br stream fails inside zlib with no HTTP status. Errors of later middleware pass untouched.
 */
import type { Context, Middleware, Next } from 'koa';

export class UnreadableBody extends Error {
  override name = 'UnreadableBody';
  readonly status = 400;
  readonly expose = true;
  constructor(cause: unknown) {
    super('The request body could not be read: it is not validly encoded for its Content-Encoding.', { cause });
  }
}

export function readBody(parser: Middleware) {
  return async function readRequestBody(ctx: Context, next: Next) {
    let parsed = false;
    try {
      await parser(ctx, async () => {
        parsed = true;
        await next();
      });
    } catch (error) {
      if (parsed || typeof (error as { status?: unknown }).status === 'number') throw error;
      throw new UnreadableBody(error);
    }
  };
}
