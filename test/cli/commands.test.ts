/** `idp tokens|users|groups|migrate` against a real database. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase } from '../helpers/database.js';
import { lastLine, runIdp } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';
import { migrations } from '../../src/store/migrate.js';

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

test('migrate says what it applied, and that there was nothing to apply the next time', async () => {
  const all = Object.keys(migrations);
  const first = await idp('migrate');
  expect(first.code).toBe(0);
  expect(first.stdout.trim()).toMatch(
    new RegExp(`^applied ${all.length} migrations to the database \\((postgres|pglite)\\): ${all.join(', ')}$`),
  );
  expect(first.stdout).not.toContain('latest schema');
  const again = await idp('migrate');
  expect(again.code).toBe(0);
  expect(again.stdout.trim()).toMatch(
    new RegExp(`^nothing to apply: the database \\((postgres|pglite)\\) already has the latest schema \\(${all.at(-1)}\\)$`),
  );
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

test('users list, deactivate and reactivate; groups list, add-member and remove-member: the domain functions, named as operators name things', async () => {
  const group = JSON.parse((await idp('groups', 'create', '--name', 'cli-editors')).stdout);
  const ada = JSON.parse((await idp('users', 'create', '--email', 'ada-cli@example.com', '--name', 'Ada Cli')).stdout);
  await idp('users', 'create', '--email', 'bob-cli@example.com', '--name', 'Bob Cli');

  const listed = await idp('users', 'list', '--search', '-cli@example.com');
  expect(listed.code).toBe(0);
  const rows = listed.stdout
    .trim()
    .split('\n')
    .map((row) => row.trim().split(/\s{2,}/));
  expect(rows[0]).toEqual(['PK', 'UUID', 'EMAIL', 'NAME', 'ACTIVE', 'GROUPS', 'LAST LOGIN']);
  expect(rows.slice(1).map((row) => row[2])).toEqual(['ada-cli@example.com', 'bob-cli@example.com']);

  // A group by name, a user by e-mail; repeating says there was nothing to do.
  expect((await idp('groups', 'add-member', 'cli-editors', 'ada-cli@example.com')).stdout.trim()).toBe(
    'ada-cli@example.com added to cli-editors',
  );
  expect((await idp('groups', 'add-member', group.pk, String(ada.pk))).stdout.trim()).toBe(
    `nothing to do: ${ada.pk} was already a member of ${group.pk}`,
  );
  const members = JSON.parse((await idp('users', 'list', '--group', 'cli-editors', '--json')).stdout);
  expect(members.map((user: { email: string }) => user.email)).toEqual(['ada-cli@example.com']);
  const groups = JSON.parse((await idp('groups', 'list', '--search', 'cli-editors', '--json')).stdout);
  expect(groups).toEqual([expect.objectContaining({ name: 'cli-editors', users_count: 1 })]);
  expect((await idp('groups', 'remove-member', 'cli-editors', ada.uuid)).code).toBe(0);
  expect(JSON.parse((await idp('users', 'list', '--group', 'cli-editors', '--json')).stdout)).toEqual([]);

  // Deactivation by uuid, as the API's PATCH is_active: false does it (the audit trail says so).
  expect((await idp('users', 'deactivate', ada.uuid)).stdout.trim()).toBe(`ada-cli@example.com (${ada.uuid}) is deactivated`);
  expect(JSON.parse((await idp('users', 'list', '--inactive', '--json')).stdout).map((user: { uuid: string }) => user.uuid)).toContain(
    ada.uuid,
  );
  const trail = JSON.parse((await idp('audit', 'list', '--user', ada.uuid, '--json')).stdout) as Array<{
    action: string;
    details: unknown;
  }>;
  expect(trail.map((event) => event.action)).toEqual(['user.updated', 'group.member_removed', 'group.member_added', 'user.created']);
  expect(trail[0]!.details).toEqual({ changed: ['is_active'] });
  expect((await idp('users', 'reactivate', 'ada-cli@example.com')).stdout.trim()).toBe(`ada-cli@example.com (${ada.uuid}) is active`);

  const unknown = await idp('users', 'deactivate', 'nobody-cli@example.com');
  expect(unknown.code).toBe(1);
  expect(lastLine(unknown.stderr)).toBe('user nobody-cli@example.com not found');
  const noGroup = await idp('groups', 'add-member', 'no-such-group', 'bob-cli@example.com');
  expect(noGroup.code).toBe(1);
  expect(lastLine(noGroup.stderr)).toBe('group "no-such-group" not found');
}, 300_000);
