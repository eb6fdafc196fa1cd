/** The service (startService) over a real test database, for API tests: API tokens and a small fetch client. */
import { startService } from '../../src/service.js';
import { createLogger } from '../../src/observability/logger.js';
import { API_SCOPES, createApiToken } from '../../src/domain/api-tokens.js';
import type { Settings } from '../../src/settings/schema.js';
import type { Engine } from '../../src/store/database.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { testSettings } from './settings.js';
import type { Workers } from '../../jobs/worker.js';

export interface TestServer {
  url: string;
  settings: Settings;
  db: TestDatabase;
  /** The in-process outbox relay and delivery workers, when started with `{ workers: true }`. */
  workers?: Workers;
  /** A fresh API token with these scopes (default: all). */
  token(scopes?: string[]): Promise<string>;
  /** fetch relative to the server with a bearer token; JSON bodies are encoded. */
  api(
    path: string,
    init?: { method?: string; token?: string | null; json?: unknown; body?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export async function startTestServer(
  engine: Engine,
  overrides: Record<string, unknown> = {},
  options: { workers?: boolean } = {},
): Promise<TestServer> {
  const db = await openTestDatabase(engine);
  const settings = await testSettings({ server: { host: '127.0.0.1', port: 0, trust_proxy: false }, ...overrides });
  const server = await startService(settings, {
    store: db.store,
    logger: createLogger('silent'),
    redis: false,
    workers: options.workers === true,
  });
  const { workers } = server;
  let adminToken: string | undefined;
  const token = async (scopes: string[] = [...API_SCOPES]) => (await createApiToken(db.store, { name: 'test', scopes })).token;

  return {
    url: server.url,
    settings,
    db,
    workers,
    token,
    async api(path, init = {}) {
      const bearer = init.token === undefined ? (adminToken ??= await token()) : init.token;
      const headers: Record<string, string> = { ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}), ...init.headers };
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers['Content-Type'] ??= 'application/json';
      }
      const response = await fetch(server.url + path, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async close() {
      await server.close();
      await db.close();
    },
  };
}
