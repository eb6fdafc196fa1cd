/**
 * One pino logger per process. Secrets never reach it by design (request lines carry method, path, status and
 * time; mail lines the user id); the redaction below is the second line of defence for fields named like one.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { fromScope } from '../request-scope.js';

export type { Logger } from 'pino';

const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'password',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'secret',
  'code_verifier',
];

/**
 * `destination` defaults to stdout, written asynchronously: a line waits only while the previous write is under way,
 * so under load lines leave in batches (one system call for many, instead of one per request) and an idle service's
 * lines leave at once. pino flushes what waits when the process exits. Tests pass a stream to read what was logged.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: undefined,
    // Every line written while a request runs names it (src/request-scope.ts, scopeRequests).
    mixin: () => {
      const requestId = fromScope('requestId');
      return requestId ? { request_id: requestId } : {};
    },
    redact: { paths: SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.headers.${field}`]), censor: '[redacted]' },
  };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
