/** `idp serve`: start the service (src/service.ts), create the bootstrap token once it listens, stop cleanly on a signal. */
import { loadSettings } from '../settings/load.js';
import { ensureBootstrapToken } from '../domain/api-tokens.js';
import { print } from './context.js';

export async function serve(options: { port?: string; host?: string }): Promise<void> {
  const overrides: Record<string, unknown> = {};
  if (options.port !== undefined || options.host !== undefined) {
    overrides.server = {
      ...(options.port !== undefined ? { port: Number(options.port) } : {}),
      ...(options.host ? { host: options.host } : {}),
    };
  }
  const settings = await loadSettings({ overrides });
  // Imported here so other commands do not load the engine (it prints a runtime notice on import).
  const { startService } = await import('../service.js');
  const service = await startService(settings);
  const { logger } = service;
  // Only now that the listener is up: a first start that fails earlier (port in use) has created no token to lose.
  const bootstrap = await ensureBootstrapToken(service.store, settings.bootstrap.token);

  logger.info({ url: service.url, database: service.engine }, 'identity service listening');
  // In production stdout carries the JSON log only: the lines for people go to stderr there.
  const say = process.env.NODE_ENV === 'production' ? (line = '') => void process.stderr.write(`${line}\n`) : print;
  say(`Identity service listening on ${service.url} (public URL ${settings.issuer.base_url}, database: ${service.engine})`);
  if (!settings.mail.smtp_url) {
    // Newcomers need the password-setup codes; production needs to know mail is not going out.
    logger.warn({ dir: `${settings.data_dir}/mail` }, 'mail.smtp_url is empty: mail is written to files, not sent');
    say(`Mail: no SMTP configured (SMTP_URL); messages are written to ${settings.data_dir}/mail/`);
  }
  if (bootstrap.created && bootstrap.generated) {
    say('');
    say('First start: an API token with every scope was created. It is shown only this once:');
    say(`  ${bootstrap.token}`);
    say(`  curl -H "Authorization: Bearer ${bootstrap.token}" ${service.url}/api/v3/core/users/`);
    say('  (a lost token cannot be shown again: mint another with `idp tokens create --scope ...`)');
    say('');
  } else if (bootstrap.created) {
    say('First start: IDP_BOOTSTRAP_TOKEN is now an API token with every scope.');
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await service.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
