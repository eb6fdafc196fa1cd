/** `idp worker`: the outbox relay and delivery workers without the web server (run as many as you like). */
import { loadSettings } from '../settings/load.js';
import { print } from './context.js';

export async function worker(): Promise<void> {
  const settings = await loadSettings();
  // Imported here: loading the engine prints a runtime notice; only the worker and serve need it.
  const { startWorkerService } = await import('../service.js');
  const service = await startWorkerService(settings);
  print(`Identity service worker running (queue prefix ${settings.redis.prefix}, database: ${service.engine})`);
  const stop = async () => {
    await service.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}
