/** `idp serve` as a newcomer runs it: zero configuration on PGlite, and on PostgreSQL via DATABASE_URL. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase } from '../helpers/database.js';
import { runIdp, lastLine, startServe } from '../helpers/cli.js';

const tokenIn = (output: string) => /\b(idp_[A-Za-z0-9_-]{43})\b/.exec(output)?.[1];

describe('idp serve', () => {
  test('embedded default: creates the database, prints the URL and a bootstrap token once, answers the API', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'idp-serve-'));
    const first = await startServe({ IDP_DATA_DIR: dataDir });
    let token: string | undefined;
    try {
      expect(first.output()).toContain('database: pglite');
      token = tokenIn(first.output());
      expect(token).toBeDefined();
      const users = await fetch(`${first.url}/api/v3/core/users/`, { headers: { Authorization: `Bearer ${token}` } });
      expect(users.status).toBe(200);
      expect((await users.json()).pagination.count).toBe(0);

      // The data folder is locked while serve runs: a second process refuses with a clear line.
      const busy = await runIdp(['tokens', 'list'], { IDP_DATA_DIR: dataDir });
      expect(busy.code).toBe(1);
      expect(lastLine(busy.stderr)).toMatch(/embedded database .* is in use by process \d+/);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startServe({ IDP_DATA_DIR: dataDir });
    try {
      expect(tokenIn(second.output())).toBeUndefined();
      const users = await fetch(`${second.url}/api/v3/core/users/`, { headers: { Authorization: `Bearer ${token}` } });
      expect(users.status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 120_000);

  const withPostgres = process.env.TEST_DATABASE_URL ? test : test.skip;
  withPostgres('DATABASE_URL: runs on PostgreSQL; IDP_BOOTSTRAP_TOKEN becomes an all-scope token', async () => {
    const pg = await createPostgresDatabase();
    const bootstrap = 'b'.repeat(40);
    const serve = await startServe({ DATABASE_URL: pg.url, IDP_BOOTSTRAP_TOKEN: bootstrap, IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-pg-')) });
    try {
      expect(serve.output()).toContain('database: postgres');
      expect(tokenIn(serve.output())).toBeUndefined();
      const headers = { Authorization: `Bearer ${bootstrap}`, 'Content-Type': 'application/json' };
      const group = await fetch(`${serve.url}/api/v3/core/groups/`, { method: 'POST', headers, body: JSON.stringify({ name: 'pg' }) });
      expect(group.status).toBe(201);
      const ready = await fetch(`${serve.url}/-/health/ready/`);
      expect(ready.status).toBe(200);
    } finally {
      await serve.stop();
      await pg.drop();
    }
  }, 120_000);
});
