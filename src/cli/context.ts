/** What CLI commands share: settings, a logger and the opened runtime, closed when the command ends. */
import { loadSettings } from '../settings/load.js';
import type { Settings } from '../settings/schema.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { openRuntime, type Runtime } from '../runtime.js';

export async function withRuntime<T>(work: (runtime: Runtime, settings: Settings, logger: Logger) => Promise<T>): Promise<T> {
  const settings = await loadSettings();
  const logger = createLogger(settings.log.level === 'info' ? 'warn' : settings.log.level);
  const runtime = await openRuntime(settings);
  try {
    return await work(runtime, settings, logger);
  } finally {
    await runtime.close();
  }
}

/** Prints to stdout: the CLI's output is for people and scripts, not the log. */
export const print = (line = '') => process.stdout.write(line + '\n');
