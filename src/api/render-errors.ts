/** The API's one error renderer: every failure leaves as JSON in the spec's shapes, never as a stack trace. */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { ApiError, detail, fieldErrors, notFound } from './errors.js';

function toApiError(error: unknown, maxBodyBytes: number): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof NotFoundError) return notFound();
  if (error instanceof ValidationError) return fieldErrors(error.fields);
  const { status, type } = error as { status?: number; type?: string };
  // Errors raised by the body parser (co-body / raw-body) carry an HTTP status.
  if (status === 413 || type === 'entity.too.large') return detail(413, `Request body is larger than ${maxBodyBytes} bytes.`);
  if (status === 400 && (error as Error).name === 'SyntaxError') return detail(400, 'JSON parse error: the body is not valid JSON.');
  if (type === 'encoding.unsupported' || status === 415) return detail(415, 'Unsupported content encoding.');
  if (status === 400) return detail(400, (error as { expose?: boolean }).expose ? (error as Error).message : 'Malformed request.');
  return undefined;
}

export function renderApiErrors(logger: Logger, maxBodyBytes: number) {
  return async function renderApiError(ctx: Context, next: Next) {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound();
      if (ctx.status === 405 && !ctx.body) throw detail(405, `Method "${ctx.method}" not allowed.`, { Allow: String(ctx.response.get('Allow')) });
    } catch (error) {
      let apiError = toApiError(error, maxBodyBytes);
      if (!apiError) {
        logger.error({ err: error, method: ctx.method, path: ctx.path }, 'API request failed');
        apiError = detail(500, 'Internal server error.');
      }
      ctx.status = apiError.status;
      ctx.set(apiError.headers);
      ctx.body = apiError.body;
    }
  };
}
