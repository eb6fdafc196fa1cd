/** `idp serve` as a newcomer runs it: zero configuration on PGlite, and on PostgreSQL via DATABASE_URL. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase } from '../helpers/database.js';
import { runIdp, lastLine, startIdp, startServe } from '../helpers/cli.js';
import { canMount, mountSmallDisk } from '../helpers/small-disk.js';

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

  // A real read-only file system: a tmpfs mounted for the test and remounted read-only (root only).
  (canMount ? test : test.skip)(
    'a read-only data directory stops the start with one line naming the folder and the cause',
    async () => {
      const disk = mountSmallDisk(4);
      try {
        // From earlier starts: a secret key in both; in one, the lock of a process that died (removed before a start).
        const [used, crashed] = [path.join(disk.dir, 'used'), path.join(disk.dir, 'crashed')];
        for (const dir of [used, crashed]) {
          mkdirSync(dir);
          writeFileSync(path.join(dir, 'secret.key'), 'k'.repeat(64) + '\n', { mode: 0o600 });
        }
        writeFileSync(path.join(crashed, 'db.lock'), '999999999');
        disk.readOnly();
        for (const dir of [used, crashed]) {
          const refused = await runIdp(['serve', '--port', '0'], { IDP_DATA_DIR: dir });
          expect(refused.code).toBe(1);
          expect(lastLine(refused.stderr)).toBe(
            `config: data_dir ${dir} cannot be written (read-only file system, EROFS): the embedded database keeps its files there; make it writable, set IDP_DATA_DIR to another folder, or set DATABASE_URL`,
          );
        }
        const fresh = path.join(disk.dir, 'new'); // a first start: the secret key is the first thing written
        const first = await runIdp(['serve', '--port', '0'], { IDP_DATA_DIR: fresh });
        expect(first.code).toBe(1);
        expect(lastLine(first.stderr)).toBe(
          `config: data_dir ${fresh} cannot be written (read-only file system, EROFS): a generated secret key is kept there; make it writable, set IDP_DATA_DIR to another folder, or set SECRET_KEY`,
        );
      } finally {
        disk.unmount();
      }
    },
    60_000,
  );

  const withPostgres = process.env.TEST_DATABASE_URL ? test : test.skip;
  withPostgres(
    'DATABASE_URL: runs on PostgreSQL; IDP_BOOTSTRAP_TOKEN becomes an all-scope token',
    async () => {
      const pg = await createPostgresDatabase();
      const bootstrap = 'b'.repeat(40);
      const serve = await startServe({
        DATABASE_URL: pg.url,
        IDP_BOOTSTRAP_TOKEN: bootstrap,
        IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-pg-')),
      });
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
    },
    120_000,
  );

  withPostgres(
    'production: stdout is JSON lines only, each key once; the lines for people (with the listening URL) go to stderr',
    async () => {
      const pg = await createPostgresDatabase();
      const child = startIdp(['serve', '--port', '0'], {
        NODE_ENV: 'production',
        DATABASE_URL: pg.url,
        SECRET_KEY: 'k'.repeat(64),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        IDP_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'idp-prod-')),
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk) => (stdout += chunk));
      child.stderr!.on('data', (chunk) => (stderr += chunk));
      try {
        const deadline = Date.now() + 60_000;
        while (!/curl .*\/api\/v3\/core\/users\//.test(stderr) && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100));
        const url = /listening on (http:\/\/[^\s]+)/.exec(stderr)![1]!;
        expect(stderr).toContain(`${url}/api/v3/core/users/`); // the printed curl names the address it listens on
        expect(tokenIn(stderr)).toBeDefined();
        expect(tokenIn(stdout)).toBeUndefined();
        await fetch(`${url}/-/health/live/`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const lines = stdout.trim().split('\n');
        expect(lines.length).toBeGreaterThan(1);
        for (const line of lines) {
          expect(() => JSON.parse(line)).not.toThrow();
          for (const key of Object.keys(JSON.parse(line)))
            expect({ line, count: line.split(`"${key}":`).length - 1 }).toEqual({ line, count: 1 });
        }
      } finally {
        const exited = new Promise((resolve) => child.on('exit', resolve));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        await pg.drop();
      }
    },
    120_000,
  );
});
