/** `idp serve`: start the service (src/service.ts), create the bootstrap token once it listens, stop cleanly on a signal. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenerOrigin, loadSettings, publicUrlFollowsListener, type Settings } from '../settings/load.js';
import { stopGracefully } from './stop-gracefully.js';
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
  const server = await listenFirst(settings);
  const service = await startService(settings, { server }).catch(async (error: unknown) => {
    if (server) await new Promise((resolve) => server.close(resolve));
    throw error;
  });
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

  const grace = settings.server.shutdown_grace_seconds;
  stopGracefully(
    logger,
    service.close,
    `new connections are refused, requests in flight get up to ${grace} s (server.shutdown_grace_seconds)`,
  );
}

/**
 * With port 0 and no configured public URL, the port is known only once bound: bind first, so the providers are
 * built with the public URL that reaches this process (loadSettings sets it for a fixed port already).
 */
async function listenFirst(settings: Settings): Promise<Server | undefined> {
  if (!publicUrlFollowsListener(settings) || settings.server.port !== 0) return undefined;
  const server = createServer();
  server.listen(0, settings.server.host);
  await once(server, 'listening');
  settings.issuer.base_url = listenerOrigin(settings.server.host, (server.address() as AddressInfo).port);
  return server;
}
