/**
 * Runs a body parser (koa-body) so that a body it cannot read is the client's fault, never a 500: too large
 * (413), not JSON (400), an unsupported encoding (415), or a corrupt gzip/deflate/br stream (which fails inside
 * zlib with no HTTP status at all). Errors of later middleware pass untouched.
 */
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '../errors.js';

export class UnreadableBody extends AppError {}

function unreadable(error: unknown, maxBytes: number): AppError {
  const { status, type } = error as { status?: number; type?: string };
  if (status === 413 || type === 'entity.too.large')
    return new UnreadableBody(`Request body is larger than ${maxBytes} bytes.`, { status: 413, cause: error });
  if (type === 'encoding.unsupported' || status === 415)
    return new UnreadableBody('Unsupported content encoding.', { status: 415, cause: error });
  if (error instanceof SyntaxError)
    return new UnreadableBody('JSON parse error: the body is not valid JSON.', { status: 400, cause: error });
  return new UnreadableBody('The request body could not be read: it is not validly encoded for its Content-Encoding.', {
    status: 400,
    cause: error,
  });
}

export function readBody(parser: Middleware, maxBytes: number) {
  return async function readRequestBody(ctx: Context, next: Next) {
    let parsed = false;
    try {
      await parser(ctx, async () => {
        parsed = true;
        await next();
      });
    } catch (error) {
      if (parsed) throw error;
      throw unreadable(error, maxBytes);
    }
  };
}
