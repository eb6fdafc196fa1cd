/**
 * A real identity service for the logout tests: OpenID Connect, the API, and the outbox relay with the
 * delivery workers (webhooks and backchannel logout) on the test Redis, all over a real database.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/server.js';
import { createLogger } from '../../src/observability/logger.js';
import { setupOidc, type Oidc } from '../../src/oidc/setup.js';
import { logoutTokenSigner } from '../../src/oidc/logout-token.js';
import { createUser } from '../../src/domain/users.js';
import { setPassword } from '../../src/domain/passwords.js';
import { API_SCOPES, createApiToken } from '../../src/domain/api-tokens.js';
import type { ApplicationSettings, Settings } from '../../src/settings/schema.js';
import type { Engine } from '../../src/store/database.js';
import type { Store } from '../../src/store/contract.js';
import { startWorkers, type Workers } from '../../jobs/worker.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { testSettings } from './settings.js';
import { webhookSettings } from './webhooks.js';
import { PASSWORD, type TestApp } from './oidc-server.js';

export { PASSWORD };

export interface LogoutTestServer {
  url: string;
  settings: Settings;
  db: TestDatabase;
  store: Store;
  oidc: Oidc;
  /** Absent with `{ workers: false }` (deliveries left to an `idp worker` process). */
  workers?: Workers;
  apps: Record<string, TestApp>;
  user(): Promise<{ pk: number; uuid: string; email: string }>;
  /** fetch with an admin API token; JSON in and out. */
  api(path: string, init?: { method?: string; json?: unknown }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

let counter = 0;

export async function startLogoutServer(
  engine: Engine,
  callbackUrl: string,
  apps: Array<Partial<ApplicationSettings> & { slug: string }>,
  options: { workers?: boolean } = {},
): Promise<LogoutTestServer> {
  const db = await openTestDatabase(engine);
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const applications = apps.map((app) => ({
    name: `App ${app.slug}`,
    client_id: `client-${app.slug}`,
    client_secret: `secret-${app.slug}-0123456789abcdef`,
    redirect_uris: [callbackUrl],
    ...app,
  }));
  const settings = await testSettings({ server: { host: '127.0.0.1', port: 0, trust_proxy: false }, issuer: { base_url: url }, ...webhookSettings(applications) });
  const logger = createLogger('silent');
  const oidc = await setupOidc(settings, db.store, logger);
  const workers = options.workers === false ? undefined : startWorkers(db.store, settings, logger, {}, logoutTokenSigner(oidc.providers));
  server.on('request', createApp({ settings, store: db.store, logger, oidc, enqueue: workers?.enqueue }).callback());

  const testApps: Record<string, TestApp> = {};
  for (const app of settings.applications) {
    testApps[app.slug] = {
      slug: app.slug, client_id: app.client_id, client_secret: app.client_secret!, redirect_uri: app.redirect_uris[0]!,
      issuer: `${url}/application/o/${app.slug}/`,
    };
  }
  let adminToken: string | undefined;

  return {
    url, settings, db, store: db.store, oidc, workers, apps: testApps,
    async user() {
      const email = `logout${++counter}-${Date.now()}@example.com`;
      const view = await createUser(db.store, { username: email, email, name: 'Ada Lovelace' });
      await setPassword(db.store, view.pk, PASSWORD, settings.passwords);
      return { pk: view.pk, uuid: view.uuid, email };
    },
    async api(path, init = {}) {
      adminToken ??= (await createApiToken(db.store, { name: 'test', scopes: [...API_SCOPES] })).token;
      const response = await fetch(url + path, {
        method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
        headers: { Authorization: `Bearer ${adminToken}`, ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await workers?.close();
      await db.close();
    },
  };
}
