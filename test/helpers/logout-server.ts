/**
 * The identity service for the logout tests: OpenID Connect, the API, and the outbox relay with the
 * delivery workers (webhooks and backchannel logout) on the test Redis (unique queue prefix, fast retries).
 */
import type { ApplicationSettings } from '../../src/settings/schema.js';
import type { Engine } from '../../src/store/database.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from './oidc-server.js';
import { webhookSettings } from './webhooks.js';

export { PASSWORD };
export type LogoutTestServer = OidcTestServer;

/** `{ workers: false }` leaves deliveries to an `idp worker` process. */
export function startLogoutServer(
  engine: Engine,
  callbackUrl: string,
  apps: Array<Partial<ApplicationSettings> & { slug: string }>,
  options: { workers?: boolean } = {},
): Promise<LogoutTestServer> {
  const { applications: _, ...delivery } = webhookSettings([]);
  return startOidcServer(engine, callbackUrl, apps, { overrides: delivery, workers: options.workers !== false });
}
