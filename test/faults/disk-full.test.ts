/**
 * The database's disk fills up under a running service, on both stores: writes that need room answer 503 with
 * Retry-After (as when PostgreSQL is down), reads still answer, readiness says not ready, nothing is half-written —
 * and once there is room again, everything works without a restart. The disk is real: a small tmpfs mounted for
 * this file (root only), holding the embedded database's folder or a PostgreSQL cluster of its own, filled up with
 * one file until the file system answers ENOSPC.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../src/store/database.js';
import { createStore } from '../../src/store/store.js';
import { engines, type TestDatabase } from '../helpers/database.js';
import { privatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { PASSWORD, startOidcServer, type OidcTestServer } from '../helpers/oidc-server.js';
import { CookieClient, httpSignIn, redeemCode } from '../helpers/http-client.js';
import { postToken } from '../helpers/oidc-rp.js';
import { canMount, mountSmallDisk, type SmallDisk } from '../helpers/small-disk.js';
import { TEMPLATE_FILE } from '../helpers/paths.js';

/** The embedded database in a folder on the small disk, as `idp serve` opens it (from the migrated template). */
async function pgliteOn(disk: SmallDisk): Promise<TestDatabase> {
  const dataDir = path.join(disk.dir, 'var', 'db');
  const database = await openDatabase({ url: '', dataDir, loadDataDir: new Blob([readFileSync(TEMPLATE_FILE)]) });
  return { engine: 'pglite', database, store: createStore(database.db), close: () => database.close() };
}

const describeWithDisk = canMount ? describe.each(engines) : describe.skip.each(engines);

describeWithDisk('a full disk (%s; a tmpfs mounted for the test, so root only)', (engine) => {
  let disk: SmallDisk;
  let pg: PrivatePostgres | undefined;
  let db: TestDatabase;
  let idp: OidcTestServer;

  beforeAll(async () => {
    // Room for the migrated database (PGlite ~40 MB; a PostgreSQL cluster ~45 MB and its first WAL segment).
    disk = mountSmallDisk(engine === 'pglite' ? 96 : 160);
    if (engine === 'postgres') pg = await privatePostgres({ under: disk.dir });
    db = pg ? pg.db : await pgliteOn(disk);
    idp = await startOidcServer(engine, 'http://127.0.0.1:1/callback', [{ slug: 'wiki' }], { db });
  }, 60_000);
  afterAll(async () => {
    await idp?.close();
    await (pg ? pg.destroy() : db?.close());
    disk?.unmount();
  });

  const ready = () => fetch(`${idp.url}/-/health/ready/`);

  test('writes answer 503 with Retry-After, reads answer, readiness says not ready; with room again all recover', async () => {
    const created = async (n: number) =>
      idp.api('/api/v3/core/users/', { json: { username: `full-${n}@example.com`, email: `full-${n}@example.com`, name: `Full ${n}` } });
    expect((await created(0)).status).toBe(201);
    expect((await ready()).status).toBe(200);
    const headers = { Authorization: `Bearer ${await idp.apiToken()}`, 'Content-Type': 'application/json' };
    const app = idp.apps.wiki!;
    const user = await idp.user();
    const signedIn = await redeemCode(app, idp.url, await httpSignIn(new CookieClient(), app, idp.url, user.email, PASSWORD));
    let refreshToken = signedIn.body.refresh_token as string;
    const refresh = () =>
      postToken(idp.url, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.client_id,
        client_secret: app.client_secret,
      });

    const before = (await idp.api('/api/v3/core/users/')).body.pagination.count as number;

    disk.fill();
    try {
      // Rows that fit in pages the database already has are still written; the first write that needs a new page is refused.
      let refused: Response | undefined;
      let written = 0;
      for (let n = 1; n <= 500 && !refused; n++) {
        const response = await fetch(`${idp.url}/api/v3/core/users/`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ username: `full-${n}@example.com`, email: `full-${n}@example.com`, name: `Full ${n}` }),
        });
        if (response.status === 201) written++;
        else refused = response;
      }
      expect(refused?.status).toBe(503);
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused!.json()).toEqual({ detail: 'The database is unavailable; try again shortly.' });

      // The protocol likewise: each refresh writes new tokens, until one needs a page the disk has no room for.
      let unavailable: Awaited<ReturnType<typeof refresh>> | undefined;
      for (let n = 0; n < 500 && !unavailable; n++) {
        const answer = await refresh();
        if (answer.status === 200) refreshToken = answer.body.refresh_token;
        else unavailable = answer;
      }
      expect(unavailable?.status).toBe(503);
      expect(unavailable!.body.error).toBe('temporarily_unavailable');
      expect(Number(unavailable!.headers.get('retry-after'))).toBeGreaterThan(0);

      const readiness = await ready();
      expect(readiness.status).toBe(503);
      expect((await readiness.json()).checks.database).toBe('unavailable');
      expect((await fetch(`${idp.url}/-/health/live/`)).status).toBe(200);
      // Reads still answer, and every user either is there whole or not at all.
      const list = await idp.api('/api/v3/core/users/');
      expect(list.status).toBe(200);
      expect(list.body.pagination.count).toBe(before + written);
    } finally {
      disk.free();
    }

    // Room again: readiness writes to check, and says ready; writes succeed. No restart.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await ready()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect((await created(1000)).status).toBe(201);
    // The refused refresh changed nothing: its refresh token was not spent, and works now.
    expect((await refresh()).status).toBe(200);
  }, 60_000);
});
