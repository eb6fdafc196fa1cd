/** `idp serve`: migrate, create the bootstrap token on first start, listen, and stop cleanly on a signal. */
import { loadSettings } from '../settings/load.js';
import { createLogger } from '../observability/logger.js';
import { openRuntime } from '../runtime.js';
import { createApp, listen } from '../server.js';
import { ensureBootstrapToken } from '../domain/api-tokens.js';
import { startSweeping } from '../oidc/sweep-expired.js';
import { print } from './context.js';
import { startWorkers } from '../../jobs/worker.js';
import { startProducer } from '../queue/producer.js';
import { redisSignInServices } from '../interactions/services.js';

export async function serve(options: { port?: string; host?: string }): Promise<void> {
  const overrides: Record<string, unknown> = {};
  if (options.port !== undefined || options.host !== undefined) {
    overrides.server = { ...(options.port !== undefined ? { port: Number(options.port) } : {}), ...(options.host ? { host: options.host } : {}) };
  }
  const settings = await loadSettings({ overrides });
  const logger = createLogger(settings.log.level);
  const runtime = await openRuntime(settings);
  const bootstrap = await ensureBootstrapToken(runtime.store, settings.bootstrap.token);
  // Imported here so other commands do not load the engine (it prints a runtime notice on import).
  const { setupOidc } = await import('../oidc/setup.js');
  const signIn = redisSignInServices(settings); // rate limits and the mail queue
  const oidc = await setupOidc(settings, runtime.store, logger.child({ component: 'oidc' }), signIn);
  // Embedded (the laptop default): this process also relays the outbox and delivers. Otherwise run `idp worker`.
  const { logoutTokenSigner } = await import('../oidc/logout-token.js');
  const background = settings.worker.embedded
    ? startWorkers(runtime.store, settings, logger.child({ component: 'worker' }), {}, logoutTokenSigner(oidc.providers))
    : startProducer(settings);
  const readiness = [{ name: 'redis', check: () => background.ping() }];
  const app = createApp({ settings, store: runtime.store, logger, oidc, enqueue: background.enqueue, readiness, limits: signIn.limits });
  const server = await listen(app, settings.server.host, settings.server.port);
  const stopSweeping = startSweeping(runtime.store, logger.child({ component: 'sweeper' }));

  logger.info({ url: server.url, database: runtime.database.engine }, 'identity service listening');
  print(`Identity service listening on ${server.url} (public URL ${settings.issuer.base_url}, database: ${runtime.database.engine})`);
  if (!settings.mail.smtp_url) {
    // Newcomers need the password-setup codes; production needs to know mail is not going out.
    logger.warn({ dir: `${settings.data_dir}/mail` }, 'mail.smtp_url is empty: mail is logged and written to files, not sent');
    print(`Mail: no SMTP configured (SMTP_URL); messages are written to ${settings.data_dir}/mail/`);
  }
  if (bootstrap.created && bootstrap.generated) {
    print('');
    print('First start: an API token with every scope was created. It is shown only this once:');
    print(`  ${bootstrap.token}`);
    print(`  curl -H "Authorization: Bearer ${bootstrap.token}" ${settings.issuer.base_url}/api/v3/core/users/`);
    print('');
  } else if (bootstrap.created) {
    print('First start: IDP_BOOTSTRAP_TOKEN is now an API token with every scope.');
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stopSweeping();
    await server.close();
    await background.close();
    await signIn.close();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
