/** `idp tokens|users|groups|migrate` against a real database. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase } from '../helpers/database.js';
import { lastLine, runIdp } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';

// One database for the whole file: PostgreSQL when available (fast to create), else an embedded PGlite folder.
let env: Record<string, string>;
let drop = async () => {};
beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'idp-cli-'));
  env = { IDP_DATA_DIR: dataDir };
  if (process.env.TEST_DATABASE_URL) {
    const pg = await createPostgresDatabase();
    env.DATABASE_URL = pg.url;
    drop = pg.drop;
  }
});
afterAll(() => drop());

const idp = (...args: string[]) => runIdp(args, env);

test('migrate reports the latest schema', async () => {
  const result = await idp('migrate');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('latest schema');
}, 60_000);

test('tokens create prints the token once; list shows it without the secret; revoke ends it', async () => {
  const created = await idp('tokens', 'create', '--name', 'ci', '--scope', 'users:read', 'groups:read');
  expect(created.code).toBe(0);
  const token = created.stdout.trim();
  expect(token).toMatch(/^idp_[A-Za-z0-9_-]{43}$/);

  const listed = await idp('tokens', 'list', '--json');
  const rows = JSON.parse(listed.stdout) as Array<{ id: string; name: string; scopes: string[] }>;
  const row = rows.find((r) => r.name === 'ci')!;
  expect(row.scopes).toEqual(['users:read', 'groups:read']);
  expect(listed.stdout).not.toContain(token);
  expect(listed.stdout).not.toContain('hash');

  expect((await idp('tokens', 'revoke', row.id)).code).toBe(0);
  const again = await idp('tokens', 'revoke', row.id);
  expect(again.code).toBe(1);
  expect(lastLine(again.stderr)).toBe('API token not found');
}, 60_000);

test('tokens create refuses unknown scopes with one line', async () => {
  const result = await idp('tokens', 'create', '--name', 'x', '--scope', 'everything');
  expect(result.code).toBe(1);
  expect(lastLine(result.stderr)).toContain('Unknown scope: everything');
}, 30_000);

test('groups create and users create (joining the group); duplicates refused', async () => {
  const group = await idp('groups', 'create', '--name', 'cli-staff');
  expect(group.code).toBe(0);
  const { pk } = JSON.parse(group.stdout);
  const user = await idp('users', 'create', '--email', 'cli@example.com', '--name', 'Cli User', '--group', pk);
  expect(user.code).toBe(0);
  expect(JSON.parse(user.stdout)).toMatchObject({ username: 'cli@example.com', email: 'cli@example.com', is_active: true, groups: [pk] });
  const dup = await idp('users', 'create', '--email', 'CLI@example.com', '--username', 'someone-else', '--name', 'Again');
  expect(dup.code).toBe(1);
  expect(lastLine(dup.stderr)).toBe('invalid input: email: A user with this email already exists.');
}, 60_000);

test('a token made by the CLI works against the API with exactly its scopes', async () => {
  // The server under test shares the CLI's database only on PostgreSQL; on PGlite this checks the format alone.
  if (!env.DATABASE_URL) return expect((await idp('tokens', 'create', '--name', 'f', '--scope', 'users:read')).code).toBe(0);
  const server = await startTestServer('postgres');
  try {
    const token = (
      await runIdp(['tokens', 'create', '--name', 'api', '--scope', 'users:read'], { ...env, DATABASE_URL: server.db.url! })
    ).stdout.trim();
    expect((await server.api('/api/v3/core/users/', { token })).status).toBe(200);
    expect((await server.api('/api/v3/core/groups/', { token })).status).toBe(403);
  } finally {
    await server.close();
  }
}, 60_000);
