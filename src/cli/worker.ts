/** `idp worker`: the outbox relay and delivery workers without the web server (run as many as you like). */
import { loadSettings } from '../settings/load.js';
import { createLogger } from '../observability/logger.js';
import { print } from './context.js';
import { stopGracefully } from './stop-gracefully.js';

export async function worker(): Promise<void> {
  const settings = await loadSettings();
  // Imported here: loading the engine prints a runtime notice; only the worker and serve need it.
  const { startWorkerService } = await import('../service.js');
  const logger = createLogger(settings.log.level);
  const service = await startWorkerService(settings, { logger });
  print(`Identity service worker running (queue prefix ${settings.redis.prefix}, database: ${service.engine})`);
  const inFlight = settings.webhooks.timeout_seconds + 5;
  stopGracefully(logger, service.close, `no new deliveries are taken, those in flight get up to ${inFlight} s (their HTTP timeout)`);
}
