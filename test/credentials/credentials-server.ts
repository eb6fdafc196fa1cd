/**
 * The identity service as `idp serve` runs it for the credential features: rate limits on the real Redis
 * (a private key prefix per server), mail queued on BullMQ and sent by the mail worker to a test SMTP
 * listener. Built like test/helpers/oidc-server.ts, with settings overrides and the Redis services.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/server.js';
import { createLogger } from '../../src/observability/logger.js';
import { setupOidc } from '../../src/oidc/setup.js';
import { createUser } from '../../src/domain/users.js';
import { setPassword } from '../../src/domain/passwords.js';
import { API_SCOPES, createApiToken } from '../../src/domain/api-tokens.js';
import { redisSignInServices } from '../../src/interactions/services.js';
import { startMailWorker } from '../../jobs/mail-delivery.js';
import type { ApplicationSettings, Settings } from '../../src/settings/schema.js';
import type { Engine } from '../../src/store/database.js';
import type { Store } from '../../src/store/contract.js';
import { openTestDatabase } from '../helpers/database.js';
import { testSettings } from '../helpers/settings.js';
import { REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { PASSWORD, type TestApp } from '../helpers/oidc-server.js';

export { PASSWORD };

export interface CredentialsServer {
  url: string;
  settings: Settings;
  store: Store;
  apps: Record<string, TestApp>;
  user(input?: { email?: string; password?: string | null; groups?: string[] }): Promise<{ pk: number; uuid: string; email: string }>;
  apiToken(): Promise<string>;
  close(): Promise<void>;
}

let counter = 0;

export async function startCredentialsServer(
  engine: Engine, callbackUrl: string, apps: Array<Partial<ApplicationSettings> & { slug: string }>,
  overrides: Record<string, unknown> = {},
): Promise<CredentialsServer> {
  const db = await openTestDatabase(engine);
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const applications = apps.map((app) => ({
    name: `App ${app.slug}`, client_id: `client-${app.slug}`, client_secret: `secret-${app.slug}-0123456789abcdef`, redirect_uris: [callbackUrl], ...app,
  }));
  const settings = await testSettings({
    server: { host: '127.0.0.1', port: 0, trust_proxy: false }, issuer: { base_url: url }, applications,
    redis: { url: REDIS_URL, prefix: uniquePrefix() }, ...overrides,
  });
  const logger = createLogger('silent');
  const signIn = redisSignInServices(settings);
  const mail = startMailWorker(settings, logger);
  const oidc = await setupOidc(settings, db.store, logger, signIn);
  server.on('request', createApp({ settings, store: db.store, logger, oidc }).callback());

  const testApps: Record<string, TestApp> = {};
  for (const app of settings.applications) {
    testApps[app.slug] = {
      slug: app.slug, client_id: app.client_id, client_secret: app.client_secret!, redirect_uri: app.redirect_uris[0]!, issuer: `${url}/application/o/${app.slug}/`,
    };
  }
  return {
    url, settings, store: db.store, apps: testApps,
    async user(input = {}) {
      const email = input.email ?? `cred${++counter}-${Date.now()}@example.com`;
      const view = await createUser(db.store, { username: email, email, name: 'Grace Hopper', groups: input.groups });
      if (input.password !== null) await setPassword(db.store, view.pk, input.password ?? PASSWORD, settings.passwords);
      return { pk: view.pk, uuid: view.uuid, email };
    },
    apiToken: async () => (await createApiToken(db.store, { name: 'test', scopes: [...API_SCOPES] })).token,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await mail.close();
      await signIn.close();
      await db.close();
    },
  };
}
