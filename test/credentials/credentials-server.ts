/**
 * The identity service as `idp serve` runs it for the credential features: rate limits on the real Redis
 * (a private key prefix per server), mail queued on BullMQ and sent by the mail worker to a test SMTP listener.
 */
import type { ApplicationSettings } from '../../src/settings/schema.js';
import type { Engine } from '../../src/store/database.js';
import type { Logger } from '../../src/observability/logger.js';
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';

export { PASSWORD };
export type CredentialsServer = OidcTestServer;

export function startCredentialsServer(
  engine: Engine,
  callbackUrl: string,
  apps: Array<Partial<ApplicationSettings> & { slug: string }>,
  overrides: Record<string, unknown> = {},
  options: { hostname?: 'localhost'; logger?: Logger } = {},
): Promise<CredentialsServer> {
  return startOidcServer(engine, callbackUrl, apps, {
    overrides: { redis: { url: REDIS_URL, prefix: uniquePrefix() }, ...overrides },
    redisServices: true,
    ...options,
  });
}
