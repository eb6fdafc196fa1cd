/** A logger whose JSON lines the test can read: the service's own pino logger writing into an array. */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/observability/logger.js';

export interface LogCapture {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines: Array<Record<string, any>>;
}

export function captureLog(level = 'info'): LogCapture {
  const lines: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}
