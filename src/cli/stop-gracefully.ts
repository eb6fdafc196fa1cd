/**
 * SIGINT and SIGTERM stop the process gracefully, once. Ctrl-C under `npm start` delivers two signals (the terminal's
 * to the whole process group, and npm forwards its own), and a container runtime may repeat SIGTERM: a signal that
 * arrives while stopping says what the stop is waiting for and changes nothing. Only SIGKILL cuts it short.
 */
import type { Logger } from '../observability/logger.js';

export function stopGracefully(logger: Logger, close: () => Promise<void>, waitingFor: string): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(
        { signal },
        `already stopping gracefully: ${waitingFor}; the process exits once they are done (SIGKILL stops it at once)`,
      );
      return;
    }
    stopping = true;
    logger.info({ signal }, `shutting down: ${waitingFor}`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'stopping failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
