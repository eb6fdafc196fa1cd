/** `idp worker`: the outbox relay and delivery workers without the web server (run as many as you like). */
import { loadSettings } from '../settings/load.js';
import { createLogger } from '../observability/logger.js';
import { openRuntime } from '../runtime.js';
import { startWorkers } from '../../jobs/worker.js';
import { print } from './context.js';

export async function worker(): Promise<void> {
  const settings = await loadSettings();
  const logger = createLogger(settings.log.level);
  const runtime = await openRuntime(settings);
  // Imported here: loading the engine prints a runtime notice; only the worker and serve need it.
  const { workerLogoutSigner } = await import('../oidc/worker-signer.js');
  const workers = startWorkers(runtime.store, settings, logger.child({ component: 'worker' }), {}, workerLogoutSigner(settings, runtime.store, logger.child({ component: 'oidc' })));
  print(`Identity service worker running (queue prefix ${settings.redis.prefix}, database: ${runtime.database.engine})`);
  const stop = async () => {
    await workers.close();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}
