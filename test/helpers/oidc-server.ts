/**
 * The identity service as `idp serve` starts it (src/service.ts startService) over a real test database. It
 * binds its port first, so the issuer URLs (built from issuer.base_url) point at the server the tests talk
 * to. Options choose what runs beside it: the workers (logout tests) and the Redis counters and mail queue
 * (credential tests).
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { startService } from '../../src/service.js';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import { createUser } from '../../src/domain/users.js';
import { hashPassword } from '../../src/domain/passwords.js';
import { API_SCOPES, createApiToken } from '../../src/domain/api-tokens.js';
import type { ApplicationSettings, Settings } from '../../src/settings/schema.js';
import type { Engine } from '../../src/store/database.js';
import type { Store } from '../../src/store/contract.js';
import type { ProviderSet } from '../../src/oidc/providers.js';
import type { Workers } from '../../jobs/worker.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { testSettings } from './settings.js';

export const PASSWORD = 'correct horse battery staple';

export interface TestApp {
  slug: string;
  client_id: string;
  client_secret: string;
  redirect_uri: string;
  issuer: string;
}

export interface OidcTestServer {
  url: string;
  settings: Settings;
  db: TestDatabase;
  store: Store;
  providers: ProviderSet;
  /** The outbox relay and delivery workers, with `{ workers: true }`. */
  workers?: Workers;
  apps: Record<string, TestApp>;
  /** Creates an active user with PASSWORD (or `password: null` for none); returns its pk and uuid. */
  user(input?: {
    email?: string;
    name?: string;
    attributes?: Record<string, unknown>;
    groups?: string[];
    password?: string | null;
    is_active?: boolean;
  }): Promise<{ pk: number; uuid: string; email: string }>;
  /** The uuid of the group named `name` (access groups are created at start). */
  groupUuid(name: string): Promise<string>;
  apiToken(): Promise<string>;
  /** fetch with an admin API token; JSON in and out. */
  api(path: string, init?: { method?: string; json?: unknown }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export interface OidcServerOptions {
  /** Merged over the test settings (and over `applications`). */
  overrides?: Record<string, unknown>;
  /** Run the outbox relay and delivery workers (webhooks, backchannel logout) in-process. */
  workers?: boolean;
  /** Rate limits on Redis and mail through the queue, sent by the in-process workers, as `idp serve` has them. */
  redisServices?: boolean;
  /** Where the service logs (default: silent). */
  logger?: Logger;
  /** A database the caller opened and closes (e.g. a private PostgreSQL server); default: a fresh test database. */
  db?: TestDatabase;
  /** The host name of the base URL: `localhost` where passkeys are tested (WebAuthn refuses IP addresses). */
  hostname?: 'localhost' | '127.0.0.1';
  /** The port to listen on (default: any free one), for a URL another server must know before this one starts. */
  port?: number;
}

let counter = 0;

/** `apps` are partial application settings; redirect_uris default to `callbackUrl`. */
export async function startOidcServer(
  engine: Engine,
  callbackUrl: string,
  apps: Array<Partial<ApplicationSettings> & { slug: string }>,
  options: OidcServerOptions = {},
): Promise<OidcTestServer> {
  const db = options.db ?? (await openTestDatabase(engine));
  const server = http.createServer();
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://${options.hostname ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  // A public application has no secret; a machine client (client_credentials only) no redirect URI.
  const applications = apps.map((app) => ({
    name: `App ${app.slug}`,
    client_id: `client-${app.slug}`,
    ...(app.client_type === 'public' ? {} : { client_secret: `secret-${app.slug}-0123456789abcdef` }),
    ...(app.grant_types && !app.grant_types.includes('authorization_code') ? {} : { redirect_uris: [callbackUrl] }),
    ...app,
  }));
  let settings, service;
  try {
    settings = await testSettings({
      server: { host: '127.0.0.1', port: 0, trust_proxy: false },
      issuer: { base_url: url },
      applications,
      ...options.overrides,
    });
    service = await startService(settings, {
      store: db.store,
      database: db.database,
      server,
      logger: options.logger ?? createLogger('silent'),
      redis: options.redisServices === true,
      workers: options.workers === true || options.redisServices === true,
    });
  } catch (error) {
    // A start that fails (bad settings in a test) must not leave the listener and the database holding Jest open.
    await new Promise((resolve) => server.close(resolve));
    if (!options.db) await db.close();
    throw error;
  }

  const testApps: Record<string, TestApp> = {};
  for (const app of settings.applications) {
    testApps[app.slug] = {
      slug: app.slug,
      client_id: app.client_id,
      client_secret: app.client_secret ?? '',
      redirect_uri: app.redirect_uris[0] ?? '',
      issuer: `${url}/application/o/${app.slug}/`,
    };
  }

  let adminToken: string | undefined;
  return {
    url,
    settings,
    db,
    store: db.store,
    providers: service.providers,
    workers: service.workers,
    apps: testApps,
    async user(input = {}) {
      const email = input.email ?? `user${++counter}-${Date.now()}@example.com`;
      const view = await createUser(db.store, {
        username: email,
        email,
        name: input.name ?? 'Ada Lovelace',
        attributes: input.attributes,
        groups: input.groups,
        is_active: input.is_active,
      });
      // The user arrives with a password, as seeded: no credential change (no notice, nothing to end).
      if (input.password !== null)
        await db.store.credentials.setPasswordHash(view.pk, await hashPassword(input.password ?? PASSWORD, settings.passwords.bcrypt_cost));
      return { pk: view.pk, uuid: view.uuid, email };
    },
    async groupUuid(name) {
      const { rows } = await db.store.groups.list({ search: name }, { offset: 0, limit: 10 });
      return rows.find((row) => row.name === name)!.uuid;
    },
    apiToken: async () => (await createApiToken(db.store, { name: 'test', scopes: [...API_SCOPES] })).token,
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
      await service.close();
      if (!options.db) await db.close();
    },
  };
}
