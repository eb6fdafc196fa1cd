/**
 * The store reports a database that does not answer as `Unavailable`; the engine only understands its own
 * errors (anything else becomes a 500 server_error). Every store call made on the engine's behalf goes through
 * `forEngine`, so the client gets `temporarily_unavailable` (RFC 6749 §4.1.2.1): 503 JSON at the token and
 * UserInfo endpoints, a redirect to the application from the authorization endpoint, a "try again" page otherwise.
 */
import { errors } from 'oidc-provider';
import { Unavailable } from '../errors.js';

export function temporarilyUnavailable(cause: unknown): Error {
  const error = new errors.TemporarilyUnavailable('the service is briefly unavailable; try again shortly', { cause });
  Object.assign(error, { status: 503, statusCode: 503 });
  return error;
}

export async function forEngine<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof Unavailable ? temporarilyUnavailable(error) : error;
  }
}
