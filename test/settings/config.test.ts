/** Configuration: node-config merge, env overrides, NODE_CONFIG, and one-line errors naming the key. */
import { readFileSync } from 'node:fs';
import { loadSettings, ConfigError } from '../../src/settings/load.js';
import { validateSettings } from '../../src/settings/validate.js';
import { runIdp, lastLine } from '../helpers/cli.js';

describe('configuration', () => {
  test('defaults match the spec limits', async () => {
    const settings = await loadSettings({ readOnly: true });
    expect(settings.tokens).toEqual({ access_token_ttl: 300, id_token_ttl: 300, refresh_token_ttl: 2592000 });
    expect(settings.api).toMatchObject({ default_page_size: 20, max_page_size: 100, max_body_bytes: 1048576 });
    expect(settings.database.url).toBe('');
  });

  test.each([
    [{ tokens: { access_token_ttl: 0 } }, 'config: tokens.access_token_ttl must be an integer ≥ 1'],
    [{ tokens: { access_token_ttl: 'soon' } }, 'config: tokens.access_token_ttl must be an integer ≥ 1'],
    [{ server: { port: 70000 } }, 'config: server.port must be an integer between 0 and 65535'],
    [{ log: { level: 'loud' } }, 'config: log.level must be one of fatal, error, warn, info, debug, trace, silent'],
    [{ tokens: { access_ttl: 5 } }, 'config: tokens.access_ttl is not a known key'],
    [{ database: { url: 'mysql://x' } }, 'config: database.url must be a postgres:// URL, or empty for the embedded database'],
  ])('rejects %j with one line naming the key', async (overrides, message) => {
    const error = await loadSettings({ overrides, readOnly: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain('\n');
  });

  test('a missing section is reported as required', () => {
    expect(() => validateSettings({})).toThrow('config: issuer is required');
  });

  test('the base URL loses its trailing slash', async () => {
    expect((await loadSettings({ overrides: { issuer: { base_url: 'https://id.example.com/' } }, readOnly: true })).issuer.base_url).toBe(
      'https://id.example.com',
    );
  });
});

describe('configuration from the environment (real process)', () => {
  test('a bad value stops the process with exit code 1 and one line, no stack trace', async () => {
    const result = await runIdp(['migrate'], { NODE_CONFIG: JSON.stringify({ tokens: { access_token_ttl: 0 } }) });
    expect(result.code).toBe(1);
    expect(lastLine(result.stderr)).toBe('config: tokens.access_token_ttl must be an integer ≥ 1');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  test('environment variables override keys (PORT, BASE_URL)', async () => {
    const port = await runIdp(['migrate'], { PORT: '-5' });
    expect(port.code).toBe(1);
    expect(lastLine(port.stderr)).toBe('config: server.port must be an integer between 0 and 65535');
    const base = await runIdp(['migrate'], { BASE_URL: 'ftp://nope' });
    expect(base.code).toBe(1);
    expect(lastLine(base.stderr)).toMatch(/^config: issuer.base_url must be an origin such as https:\/\/id.example.com/);
    // Not a number at all: one line naming the variable, not node-config's parser internals.
    const word = await runIdp(['migrate'], { PORT: 'abc' });
    expect(word.code).toBe(1);
    expect(word.stderr.trim()).toBe('config: PORT="abc" is not a valid value (expected JSON, e.g. a number or true/false)');
  });

  test('idp --version prints the package version', async () => {
    const result = await runIdp(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
  });

  test('production refuses to run without a secret key', async () => {
    const result = await runIdp(['migrate'], { NODE_ENV: 'production', DATABASE_URL: 'postgres://127.0.0.1:1/x' });
    expect(result.code).toBe(1);
    expect(lastLine(result.stderr)).toBe('config: secrets.key is required in production (set SECRET_KEY)');
  });
});
