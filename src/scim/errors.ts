/**
 * SCIM's error shape (RFC 7644 §3.12): `{"schemas": [Error], "status": "409", "scimType": "uniqueness", "detail"}`
 * as application/scim+json. Errors raised elsewhere (the token check, the rate limit, the body parser, the domain)
 * are turned into it here, by class, in one place; src/render-errors.ts calls `renderScimError` for /scim/ paths.
 */
import type { Context } from 'koa';
import { ApiError, AppError, NotFoundError, ScimError, UniquenessError, Unavailable, ValidationError } from '../errors.js';
import { ERROR } from './schemas.js';

export { ScimError };

export const SCIM_MEDIA_TYPE = 'application/scim+json; charset=utf-8';

/** The paths SCIM answers, errors included (/scim/v2 and anything else under /scim). */
export const isScimPath = (path: string) => path === '/scim' || path.startsWith('/scim/');

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export const scimError = (status: number, scimType: ScimType | undefined, detail: string, headers?: Record<string, string>) =>
  new ScimError(status, scimType, detail, headers);

export const invalidValue = (detail: string) => scimError(400, 'invalidValue', detail);
export const notFound = (what: string, id: string) => scimError(404, undefined, `${what} ${id} not found.`);

const fieldsText = (fields: Record<string, string[]>) =>
  Object.entries(fields)
    .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
    .join(' ');

/** The SCIM answer for any error of the contract; undefined for an unknown error (a bug: 500). */
export function toScimError(error: unknown): ScimError | undefined {
  if (error instanceof ScimError) return error;
  if (error instanceof UniquenessError) return scimError(409, 'uniqueness', fieldsText(error.fields));
  if (error instanceof ValidationError) return invalidValue(fieldsText(error.fields));
  if (error instanceof NotFoundError) return scimError(404, undefined, 'Resource not found.');
  if (error instanceof ApiError) {
    // The shared steps (token check, rate limit, body parser) speak the API's shape; their words carry over.
    const text = typeof error.body.detail === 'string' ? error.body.detail : JSON.stringify(error.body);
    return scimError(error.status, error.status === 400 ? 'invalidSyntax' : undefined, text, error.headers);
  }
  if (error instanceof Unavailable) return scimError(503, undefined, error.message, error.headers);
  // A body that cannot be read (src/http/read-body.ts), and any other exposed error.
  if (error instanceof AppError && error.expose) {
    return scimError(error.status, error.status === 400 ? 'invalidSyntax' : undefined, error.message, error.headers);
  }
  return undefined;
}

export function renderScimError(ctx: Context, error: unknown): void {
  const answer = toScimError(error) ?? scimError(500, undefined, 'Internal server error.');
  ctx.status = answer.status;
  ctx.set({ ...answer.headers, 'Cache-Control': 'no-store' });
  ctx.body = {
    schemas: [ERROR],
    status: String(answer.status),
    ...(answer.scimType ? { scimType: answer.scimType } : {}),
    detail: answer.detail,
  };
  ctx.type = SCIM_MEDIA_TYPE;
}
