/**
 * What an operator sees when the configuration is wrong: a NODE_CONFIG that is not JSON stops everything, every
 * problem is listed at once in plain words (no regular expression), a YAML mistake is shown with its snippet; and
 * secrets may come from files (`<NAME>_FILE`).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadSettings } from '../../src/settings/load.js';
import { settingsSchema } from '../../src/settings/schema.js';
import { PATTERN_WORDS } from '../../src/settings/validate.js';
import { runIdp } from '../helpers/cli.js';
import { ROOT } from '../helpers/paths.js';

const tmp = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), prefix));

/** Every problem line a command printed (the lines for people that start with `config: `). */
const problemLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('config: '));

/** The settings a fresh process loads with exactly this environment (node-config reads the environment once per process). */
function settingsIn(env: Record<string, string>): Promise<{ code: number | null; settings?: Record<string, any>; stderr: string }> {
  const script =
    "const { loadSettings } = await import('./src/settings/load.ts');" +
    'try { process.stdout.write(JSON.stringify(await loadSettings({ readOnly: true }))); }' +
    "catch (error) { process.stderr.write(error.message + '\\n'); process.exit(1); }";
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', IDP_DATA_DIR: tmp('idp-config-'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr, settings: code === 0 ? JSON.parse(stdout) : undefined }));
  });
}

describe('a NODE_CONFIG that is not JSON', () => {
  test('`idp config check` fails naming it, instead of calling the configuration valid', async () => {
    const result = await runIdp(['config', 'check'], { NODE_CONFIG: '{bad' });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('valid');
    expect(problemLines(result.stderr)).toEqual(['config: NODE_CONFIG is not valid JSON (it goes wrong at character 2)']);
    expect(result.stderr).not.toContain('malformed'); // node-config's own warning never shows: it is not reached
  }, 30_000);

  test('`idp serve` does not start without the operator’s settings', async () => {
    const result = await runIdp(['serve', '--port', '0'], { NODE_CONFIG: '{"server": {"port": 9000', IDP_DATA_DIR: tmp('idp-bad-') });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('listening');
    expect(problemLines(result.stderr)).toEqual([expect.stringMatching(/^config: NODE_CONFIG is not valid JSON/)]);
  }, 30_000);

  test('JSON that is not an object is refused too', async () => {
    const result = await runIdp(['config', 'check'], { NODE_CONFIG: '[1, 2]' });
    expect(result.code).toBe(1);
    expect(problemLines(result.stderr)).toEqual(['config: NODE_CONFIG must be a JSON object, e.g. {"server": {"port": 9000}}']);
  }, 30_000);
});

describe('every problem, in plain words', () => {
  test('a wrong server.port no longer hides a wrong token lifetime in the same configuration', async () => {
    const error = (await loadSettings({
      overrides: { server: { port: 'nine thousand' }, tokens: { access_token_ttl: '5m' }, log: { level: 'loud' } },
      readOnly: true,
    }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.problems).toEqual([
      'config: server.port must be an integer between 0 and 65535',
      'config: log.level must be one of fatal, error, warn, info, debug, trace, silent',
      'config: tokens.access_token_ttl must be an integer ≥ 1',
    ]);
    expect(error.message).toBe(error.problems.join('\n'));
  });

  test('the CLI prints each problem on its own line', async () => {
    const result = await runIdp(['config', 'check'], {
      NODE_CONFIG: JSON.stringify({ server: { port: 70000 }, tokens: { access_token_ttl: '5m' } }),
    });
    expect(result.code).toBe(1);
    expect(problemLines(result.stderr)).toEqual([
      'config: server.port must be an integer between 0 and 65535',
      'config: tokens.access_token_ttl must be an integer ≥ 1',
    ]);
  }, 30_000);

  test('every variable of the wrong shape is named, not only the first', async () => {
    const result = await runIdp(['config', 'check'], { PORT: 'abc', PROXY_HOPS: 'two' });
    expect(result.code).toBe(1);
    expect(problemLines(result.stderr)).toEqual([
      'config: PORT="abc" is not a valid value (expected JSON, e.g. a number or true/false)',
      'config: PROXY_HOPS="two" is not a valid value (expected JSON, e.g. a number or true/false)',
    ]);
  }, 30_000);

  test('rules beyond the schema are all reported, in every application', async () => {
    const app = (slug: string, extra: Record<string, unknown>) => ({
      slug,
      name: slug,
      client_id: slug,
      client_secret: 'a-long-enough-secret-value',
      redirect_uris: [`https://${slug}.example.com/cb`],
      ...extra,
    });
    const error = (await loadSettings({
      overrides: {
        applications: [
          app('wiki', { redirect_uris: ['http://wiki.example.com/cb'], scopes: ['profile'] }),
          app('crm', { backchannel_logout_uri: 'http://crm.example.com/bc' }),
          app('Bad Slug', { client_id: 'bad-slug', redirect_uris: ['https://bad.example.com/cb'] }),
        ],
      },
      readOnly: true,
    }).catch((e: unknown) => e)) as ConfigError;
    expect(error.problems).toEqual([
      'config: applications[2].slug must be 1 to 63 lowercase letters, digits and dashes, starting with a letter or digit (application "Bad Slug")',
      'config: applications[0].redirect_uris[0] must be an absolute https URL (http only on localhost/127.0.0.1), without a fragment (application "wiki")',
      'config: applications[0].scopes must include openid (application "wiki")',
      'config: applications[1].backchannel_logout_uri must be an https URL (http only on loopback with webhooks.allow_insecure_loopback) (application "crm")',
    ]);
  });

  test('no message shows a regular expression: every pattern of the schema has words', async () => {
    const patterns: string[] = [];
    const walk = (node: unknown) => {
      if (!node || typeof node !== 'object') return;
      const { pattern } = node as { pattern?: unknown };
      if (typeof pattern === 'string') patterns.push(pattern);
      Object.values(node).forEach(walk);
    };
    walk(settingsSchema);
    expect(patterns.length).toBeGreaterThan(10);
    expect(patterns.filter((pattern) => !PATTERN_WORDS[pattern])).toEqual([]);

    const error = (await loadSettings({
      overrides: { database: { url: 'mysql://x' }, issuer: { base_url: 'https://id.example.com/path' }, redis: { prefix: 'a b' } },
      readOnly: true,
    }).catch((e: unknown) => e)) as ConfigError;
    expect(error.problems).toEqual([
      'config: issuer.base_url must be an origin such as https://id.example.com (http or https, a host name, no path, query or user name)',
      'config: database.url must be a postgres:// URL, or empty for the embedded database',
      'config: redis.prefix must be 1 to 64 letters, digits, _, : or -',
    ]);
    for (const problem of error.problems) expect(problem).not.toMatch(/[\^$\\]|\{\d/);
  });

  test('a YAML mistake is shown with the lines around it, not cut after the first', async () => {
    const dir = tmp('idp-yaml-');
    for (const file of readdirSync(path.join(ROOT, 'config')).filter((name) => !name.startsWith('local')))
      copyFileSync(path.join(ROOT, 'config', file), path.join(dir, file));
    writeFileSync(path.join(dir, 'local.yaml'), 'server:\n  port: 9000\n   host: 0.0.0.0\ntokens:\n  access_token_ttl: 60\n');
    const result = await runIdp(['config', 'check'], { NODE_CONFIG_DIR: dir });
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    const first = lines.findIndex((line) => line.startsWith('config: '));
    expect(lines[first]!.startsWith(`config: ${path.join(dir, 'local.yaml')} cannot be parsed: `)).toBe(true);
    const snippet = lines.slice(first + 1).join('\n');
    expect(lines[first]).toMatch(/line 2, column \d+:$/);
    expect(snippet).toMatch(/^\s*port: 9000\n\s+\^$/m); // the line with the mistake, and the mark under it
  }, 30_000);
});

describe('secrets from files (<NAME>_FILE)', () => {
  test('a mapped variable is read from the file its _FILE names, without the trailing line break', async () => {
    const dir = tmp('idp-secrets-');
    writeFileSync(path.join(dir, 'secret_key'), `${'s'.repeat(64)}\n`);
    writeFileSync(path.join(dir, 'port'), '9411\n');
    const { code, settings, stderr } = await settingsIn({
      SECRET_KEY_FILE: path.join(dir, 'secret_key'),
      PORT_FILE: path.join(dir, 'port'),
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(settings!.secrets.key).toBe('s'.repeat(64));
    expect(settings!.server.port).toBe(9411);
  }, 30_000);

  test('an application secret named by client_secret_env may come from a file as well', async () => {
    const dir = tmp('idp-secrets-');
    writeFileSync(path.join(dir, 'wiki'), 'wiki-secret-from-a-file\n');
    const wiki = {
      slug: 'wiki',
      name: 'Wiki',
      client_id: 'wiki',
      client_secret_env: 'WIKI_SECRET',
      redirect_uris: ['https://wiki.example.com/cb'],
    };
    const { settings, stderr } = await settingsIn({
      NODE_CONFIG: JSON.stringify({ applications: [wiki] }),
      WIKI_SECRET_FILE: path.join(dir, 'wiki'),
    });
    expect(stderr).toBe('');
    expect(settings!.applications[0].client_secret).toBe('wiki-secret-from-a-file');
  }, 30_000);

  test('both the variable and its file, or a file that cannot be read: each named in one line', async () => {
    const missing = path.join(tmp('idp-secrets-'), 'nothing-here');
    const { code, stderr } = await settingsIn({ SECRET_KEY: 'k'.repeat(64), SECRET_KEY_FILE: missing, METRICS_TOKEN_FILE: missing });
    expect(code).not.toBe(0);
    expect(problemLines(stderr)).toEqual([
      'config: SECRET_KEY and SECRET_KEY_FILE are both set; keep one',
      `config: METRICS_TOKEN_FILE=${missing} cannot be read (no such file)`,
    ]);
  }, 30_000);
});
