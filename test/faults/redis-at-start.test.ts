/**
 * Redis unreachable when the service starts: it starts anyway, warns at once in its log, readiness says which
 * dependency is missing, and the sign-in page answers (docs/credentials.md, README "Webhooks and background work").
 */
import { captureLog } from '../helpers/log-capture.js';
import { startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, pkceRequest } from '../helpers/http-client.js';

const { logger, lines } = captureLog();
let idp: OidcTestServer;
beforeAll(async () => {
  // Port 1 on loopback: nothing listens there, connections are refused at once.
  idp = await startOidcServer('pglite', 'http://127.0.0.1:1/callback', [{ slug: 'wiki' }], {
    redisServices: true,
    logger,
    overrides: { redis: { url: 'redis://127.0.0.1:1' } },
  });
}, 60_000);
afterAll(async () => idp?.close());

test('starts, warns once that Redis is not answering, and readiness names it', async () => {
  for (let i = 0; i < 120 && !lines.some((line) => /Redis is not answering/.test(line.msg)); i++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const warnings = lines.filter((line) => /Redis is not answering/.test(line.msg));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]!.level).toBe(40); // pino's warn
  const ready = await fetch(`${idp.url}/-/health/ready/`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ status: 'unavailable', checks: { database: 'ok', redis: 'unavailable' } });
  expect((await fetch(`${idp.url}/-/health/live/`)).status).toBe(200);
});

test('the sign-in page still answers', async () => {
  const http = new CookieClient();
  const page = await http.follow(await http.request((await pkceRequest(idp.apps.wiki!, idp.url)).url.href));
  if (page instanceof URL) throw new Error('expected the sign-in page');
  expect(page.status).toBe(200);
  expect(page.text).toContain('name="email"');
});
