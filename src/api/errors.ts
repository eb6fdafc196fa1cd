/** The provisioning API's error shapes (`{"detail": "..."}` and `{"field": ["..."]}`) and its conversion of the rest. */
import { ApiError, AppError, NotFoundError, ValidationError } from '../errors.js';

export { ApiError };

export const detail = (status: number, text: string, headers?: Record<string, string>) => new ApiError(status, { detail: text }, headers);
export const notFound = () => detail(404, 'Not found.');
export const fieldErrors = (fields: Record<string, string[]>) => new ApiError(400, fields);

/** The API shape of any error of the contract; undefined for an unknown error (a bug: the caller answers 500). */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof NotFoundError) return notFound();
  if (error instanceof ValidationError) return fieldErrors(error.fields);
  if (error instanceof AppError && error.expose) return detail(error.status, error.message, error.headers);
  return undefined;
}
