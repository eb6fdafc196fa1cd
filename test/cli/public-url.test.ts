/**
 * The public URL outside production: without BASE_URL it follows the port `idp serve` listens on (PORT=9411 →
 * http://localhost:9411), so the pages' redirects reach this process; and `idp doctor` fails when the configured
 * public URL does not reach it.
 */
import { runIdp, startServe } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { migratedDataDir } from '../helpers/settings.js';

const lineOf = (stdout: string, check: string) => stdout.split('\n').find((line) => line.slice(5).startsWith(`${check}:`)) ?? '';

describe('the public URL follows the listener when BASE_URL is not set', () => {
  let port: number;
  let env: Record<string, string>;
  let serve: Awaited<ReturnType<typeof startServe>>;
  beforeAll(async () => {
    port = await freePort();
    env = { PORT: String(port), IDP_DATA_DIR: migratedDataDir('idp-public-url-'), DATABASE_URL: '' };
    serve = await startServe(env, ['serve']);
  }, 200_000);
  afterAll(() => serve?.stop());

  test('PORT=<port> idp serve: the public URL is http://localhost:<port>, and /account/ redirects there', async () => {
    expect(serve.url).toBe(`http://127.0.0.1:${port}`);
    expect(serve.output()).toContain(`(public URL http://localhost:${port},`);
    const account = await fetch(`${serve.url}/account/`, { redirect: 'manual' });
    expect(account.status).toBe(303);
    expect(account.headers.get('location')).toMatch(new RegExp(`^http://localhost:${port}/application/o/authorize/\\?`));
    const discovery = await fetch(`${serve.url}/application/o/account/.well-known/openid-configuration`);
    if (discovery.ok) expect((await discovery.json()).issuer).toMatch(new RegExp(`^http://localhost:${port}/`));
  });

  test('idp doctor: ok when the public URL reaches this process', async () => {
    const result = await runIdp(['doctor'], env);
    expect(lineOf(result.stdout, 'public URL')).toBe(
      `ok   public URL: http://localhost:${port} reaches the server listening at http://127.0.0.1:${port}`,
    );
  }, 60_000);

  test('idp doctor: FAIL when BASE_URL names a port where nothing listens (the reported case: PORT changed, BASE_URL not)', async () => {
    const elsewhere = await freePort();
    const result = await runIdp(['doctor'], { ...env, BASE_URL: `http://localhost:${elsewhere}` });
    expect(result.code).toBe(1);
    expect(lineOf(result.stdout, 'public URL')).toMatch(
      new RegExp(
        `^FAIL public URL: nothing answers at http://localhost:${elsewhere} \\([^)]+\\), but the service listens at http://127.0.0.1:${port}: set BASE_URL`,
      ),
    );
    expect(result.stderr).toContain('failed: public URL');
  }, 60_000);

  test('idp doctor: FAIL when the public URL answers but is not this service', async () => {
    const { createServer } = await import('node:http');
    const other = createServer((_, res) => res.end('hello')).listen(0, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    try {
      const otherPort = (other.address() as { port: number }).port;
      const result = await runIdp(['doctor'], { ...env, BASE_URL: `http://localhost:${otherPort}` });
      expect(lineOf(result.stdout, 'public URL')).toBe(
        `FAIL public URL: http://localhost:${otherPort} answers (200) but is not this service (no X-Idp-Instance on /-/health/live/): issuer.base_url (BASE_URL) points at another server`,
      );
    } finally {
      other.close();
    }
  }, 60_000);
});

test('idp serve --port 0 without BASE_URL: the public URL names the port it got', async () => {
  const serve = await startServe({ IDP_DATA_DIR: migratedDataDir('idp-public-url-'), DATABASE_URL: '' });
  try {
    const port = new URL(serve.url).port;
    expect(serve.output()).toContain(`(public URL http://localhost:${port},`);
    const account = await fetch(`${serve.url}/account/`, { redirect: 'manual' });
    expect(account.headers.get('location')).toMatch(new RegExp(`^http://localhost:${port}/`));
  } finally {
    await serve.stop();
  }
}, 200_000);

test('a configured BASE_URL is kept whatever the port', async () => {
  const result = await runIdp(['config', 'check'], { PORT: '9411', BASE_URL: 'https://id.example.com' });
  expect(result.stdout).toContain('public URL: https://id.example.com;');
  const following = await runIdp(['config', 'check'], { PORT: '9411' });
  expect(following.stdout).toContain('public URL: http://localhost:9411;');
}, 60_000);
