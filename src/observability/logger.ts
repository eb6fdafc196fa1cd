/** One pino logger per process. Secrets never reach it: request logs carry method, path, status and time only. */
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['*.authorization', '*.password', '*.token', '*.client_secret', '*.secret'], censor: '[redacted]' },
  });
}
