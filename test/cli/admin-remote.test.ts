/**
 * `idp tokens` and `idp keys` while `idp serve` holds the embedded database (PGlite): with an admin-scoped token
 * (IDP_ADMIN_TOKEN) they work through the running server's admin API and print what they print locally; without
 * one they refuse in one line that names IDP_ADMIN_TOKEN.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_SCOPES } from '../../src/domain/api-tokens.js';
import { lastLine, runIdp, startServe } from '../helpers/cli.js';

const TOKEN = /^idp_[A-Za-z0-9_-]{43}$/;

test('tokens create|list|revoke and keys rotate|list go through the running server, and print as they do locally', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'idp-admin-remote-'));
  const bootstrap = randomBytes(24).toString('hex'); // ≥ 32 characters: becomes a token with every scope, admin included
  const serve = await startServe({ IDP_DATA_DIR: dataDir, IDP_BOOTSTRAP_TOKEN: bootstrap });
  // serve listens on a free port (--port 0); the CLI finds it where the configuration says: HOST and PORT.
  const { hostname, port } = new URL(serve.url);
  const local = { IDP_DATA_DIR: dataDir, HOST: hostname, PORT: port };
  const remote = { ...local, IDP_ADMIN_TOKEN: bootstrap };
  const idp = (env: Record<string, string>, ...args: string[]) => runIdp(args, env);
  let stopped = false;
  try {
    const created = await idp(remote, 'tokens', 'create', '--name', 'x', '--scope', 'users:read');
    expect({ code: created.code, stderr: created.stderr }).toEqual({
      code: 0,
      stderr: expect.stringContaining(`working through the running server at ${serve.url}`),
    });
    const token = created.stdout.trim();
    expect(token).toMatch(TOKEN);
    expect(created.stderr).toMatch(/created token [0-9a-f-]{36} \(x: users:read\)\. Store it now/);

    // The new token is real on the running server, with exactly its scope.
    const users = await fetch(`${serve.url}/api/v3/core/users/`, { headers: { Authorization: `Bearer ${token}` } });
    expect(users.status).toBe(200);
    expect((await fetch(`${serve.url}/api/v3/core/groups/`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(403);

    // A token without the admin scope is refused by the server, in one line.
    const weak = await idp({ ...local, IDP_ADMIN_TOKEN: '' }, 'tokens', 'list', '--token', token);
    expect({ code: weak.code, last: lastLine(weak.stderr) }).toEqual({
      code: 1,
      last: `error: the running server at ${serve.url} refused the admin token (IDP_ADMIN_TOKEN or --token): You do not have permission to perform this action (the token lacks the admin scope).`,
    });

    const listed = await idp(remote, 'tokens', 'list');
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID +STATE +NAME +SCOPES +EXPIRES +LAST USED$/);
    const row = rows.find((line) => / x +users:read /.test(line))!;
    expect(row).toMatch(/^[0-9a-f-]{36} +active +x +users:read +never +\d{4}-\d\d-\d\dT/);
    expect(rows.some((line) => line.includes(` bootstrap  ${API_SCOPES.join(' ')} `))).toBe(true);
    expect(listed.stdout).not.toContain(token);
    expect(listed.stdout).not.toContain(bootstrap);
    const id = row.split(' ')[0]!;

    const json = await idp(remote, 'tokens', 'list', '--json');
    expect(JSON.parse(json.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, name: 'x', scopes: ['users:read'], revoked_at: null })]),
    );

    const rotated = await idp(remote, 'keys', 'rotate');
    expect(rotated.code).toBe(0);
    const kid = /^new active RS256 signing key (\S+)$/.exec(rotated.stdout.trim())?.[1];
    expect(kid).toBeDefined();
    const keys = await idp(remote, 'keys', 'list');
    expect(keys.code).toBe(0);
    const [keyHeader, first, second] = keys.stdout.trimEnd().split('\n');
    expect(keyHeader).toMatch(/^KID +ALG +STATE +CREATED +RETIRED$/);
    expect(first).toMatch(new RegExp(`^${kid} +RS256 +active +\\S+ +-$`));
    expect(second).toMatch(/^\S+ +RS256 +retired +\S+ +\d{4}-/);

    const revoked = await idp(remote, 'tokens', 'revoke', id);
    expect({ code: revoked.code, stdout: revoked.stdout }).toEqual({ code: 0, stdout: `revoked ${id}\n` });
    expect((await fetch(`${serve.url}/api/v3/core/users/`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    const again = await idp(remote, 'tokens', 'revoke', id);
    expect({ code: again.code, last: lastLine(again.stderr) }).toEqual({ code: 1, last: 'API token not found' });
    const invalid = await idp(remote, 'tokens', 'create', '--name', 'y', '--scope', 'everything');
    expect({ code: invalid.code, last: lastLine(invalid.stderr) }).toEqual({
      code: 1,
      last: expect.stringMatching(/^invalid input: scopes: /),
    });

    // Without a token: today's one-line refusal, now saying how.
    const refused = await idp(local, 'tokens', 'list');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr.trim()).toMatch(/^the embedded database in .* is in use by process \d+; .*set IDP_ADMIN_TOKEN .*admin scope/);
    const noKeys = await idp(local, 'keys', 'rotate');
    expect({ code: noKeys.code, last: lastLine(noKeys.stderr) }).toEqual({ code: 1, last: expect.stringContaining('IDP_ADMIN_TOKEN') });

    // What the remote path printed, the local path prints from the same data once the server is gone.
    const remoteOutputs = [
      await idp(remote, 'tokens', 'list'),
      await idp(remote, 'tokens', 'list', '--json'),
      await idp(remote, 'keys', 'list'),
    ];
    expect(await serve.stop()).toBe(0);
    stopped = true;
    const localOutputs = [
      await idp(local, 'tokens', 'list'),
      await idp(local, 'tokens', 'list', '--json'),
      await idp(local, 'keys', 'list'),
    ];
    for (const [index, result] of localOutputs.entries()) {
      expect(result.stderr).not.toContain('running server');
      expect({ index, code: result.code, stdout: result.stdout }).toEqual({ index, code: 0, stdout: remoteOutputs[index]!.stdout });
    }
    expect(localOutputs[0]!.stdout).toMatch(new RegExp(`^${id} +revoked +x `, 'm'));
  } finally {
    if (!stopped) await serve.stop();
  }
}, 240_000);
