/**
 * The database's change notices (migrations 0008, 0009 and 0011) and the read cache that trusts them (src/store/change-feed.ts):
 * every change a cached row could go stale by is announced by the database itself, on both stores; nothing is
 * announced for what cannot be cached; and on PostgreSQL a lost listening connection turns the cache off until it
 * listens again.
 */
import pg from 'pg';
import { sql } from 'kysely';
import { modelsThat } from '../../src/store/oidc-models.js';
import { engines, openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createLogger } from '../../src/observability/logger.js';
import { LISTENER_NAME, type Listening, type NoticeListener } from '../../src/store/change-feed.js';
import { createReadCache } from '../../src/store/replica/read-cache.js';
import { followChanges } from '../../src/store/replica/index.js';
import type { OidcPayload } from '../../src/store/contract.js';

const soon = (ms = 60_000) => new Date(Date.now() + ms);
const payload = (model: string, id: string, extra: Partial<OidcPayload> = {}): Omit<OidcPayload, 'consumed_at'> => ({
  model,
  id,
  payload: { jti: id },
  grant_id: null,
  user_code: null,
  uid: null,
  account_id: null,
  client_id: null,
  expires_at: soon(),
  ...extra,
});

async function eventually(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(engines)('change notices (%s)', (engine) => {
  let db: TestDatabase;
  let stop: () => Promise<void>;
  const notices: string[] = [];
  let up = false;

  beforeAll(async () => {
    db = await openTestDatabase(engine);
    ({ stop } = db.database.listen!({ notice: (text) => notices.push(text), up: () => (up = true), down: () => (up = false) }));
    await eventually('the listener', () => up);
  });
  afterAll(async () => {
    await stop?.();
    await db?.close();
  });

  /** Waits until every notice committed so far has arrived (notices come in commit order): a marker's own. */
  async function settle(): Promise<string> {
    const marker = await db.store.users.insert({
      username: `m${Date.now()}${Math.random()}`,
      email: `m${Date.now()}${Math.random()}@example.com`,
      name: 'Marker',
    });
    await db.store.users.update(marker.id, { name: 'Marker 2' });
    await eventually('the marker notice', () => notices.includes(`u:${marker.uuid}`));
    return `u:${marker.uuid}`;
  }

  /** The notices `change` causes, and no earlier change's. */
  async function noticesOf(change: () => Promise<unknown>): Promise<string[]> {
    await settle();
    notices.length = 0;
    await change();
    const marker = await settle();
    return notices.filter((text) => text !== marker);
  }

  test('engine rows: an update or a delete of a live token, code, grant or session names it; inserts, consumes, later expiries, expired rows and uncached models (interactions) say nothing', async () => {
    expect(await noticesOf(() => db.store.oidcPayloads.upsert(payload('AccessToken', 'at-1', { grant_id: 'g-1' })))).toEqual([]);
    expect(await noticesOf(() => db.store.oidcPayloads.upsert(payload('Grant', 'g-1')))).toEqual([]);
    expect(await noticesOf(() => db.store.oidcPayloads.upsert(payload('Grant', 'g-1', { payload: { changed: true } })))).toEqual([
      'p:Grant:g-1',
    ]);
    // Saved again with a later expiry only (a grant at each sign-in): a copy that predates it ends sooner, unharmed.
    const later = soon(120_000);
    expect(
      await noticesOf(() =>
        db.store.oidcPayloads.upsert(payload('Grant', 'g-1', { payload: { changed: true, exp: 2 }, expires_at: later })),
      ),
    ).toEqual([]);
    expect(
      await noticesOf(() =>
        db.store.oidcPayloads.upsert(payload('Grant', 'g-1', { payload: { changed: true, exp: 1 }, expires_at: soon(30_000) })),
      ),
    ).toEqual(['p:Grant:g-1']);
    expect(
      await noticesOf(() =>
        db.store.oidcPayloads.upsert(payload('Grant', 'g-1', { payload: { changed: true }, grant_id: 'other', expires_at: soon(200_000) })),
      ),
    ).toEqual(['p:Grant:g-1']);
    expect(await noticesOf(() => db.store.oidcPayloads.revokeByGrantId('g-1'))).toEqual(['p:AccessToken:at-1']);
    expect(await noticesOf(() => db.store.oidcPayloads.destroy('Grant', 'g-1'))).toEqual(['p:Grant:g-1']);

    await db.store.oidcPayloads.upsert(payload('ClientCredentials', 'cc-1', { account_id: null }));
    await db.store.oidcPayloads.upsert(payload('AccessToken', 'at-2', { account_id: 'acc-1', client_id: 'wiki' }));
    expect((await noticesOf(() => db.store.oidcPayloads.destroyByAccount('acc-1'))).sort()).toEqual(['p:AccessToken:at-2']);
    expect(await noticesOf(() => db.store.oidcPayloads.destroy('ClientCredentials', 'cc-1'))).toEqual(['p:ClientCredentials:cc-1']);

    await db.store.oidcPayloads.upsert(payload('RefreshToken', 'rt-1'));
    // A consume is decided in the database, whatever a replica remembers (engine-storage/unit-of-work.ts): it says nothing.
    expect(await noticesOf(() => db.store.oidcPayloads.consume('RefreshToken', 'rt-1', new Date()))).toEqual([]);
    expect(await noticesOf(() => db.store.oidcPayloads.destroy('RefreshToken', 'rt-1'))).toEqual(['p:RefreshToken:rt-1']);
    await db.store.oidcPayloads.upsert(payload('AuthorizationCode', 'code-1'));
    expect(
      await noticesOf(() =>
        db.store.oidcPayloads.redeem({ model: 'AuthorizationCode', id: 'code-1' }, [payload('AccessToken', 'at-3')], new Date()),
      ),
    ).toEqual([]);
    // Sessions are kept too: a change names them, a later expiry alone does not.
    await db.store.oidcPayloads.upsert(payload('Session', 'sess-1', { uid: 'uid-1' }));
    expect(
      await noticesOf(() => db.store.oidcPayloads.upsert(payload('Session', 'sess-1', { uid: 'uid-1', payload: { changed: true } }))),
    ).toEqual(['p:Session:sess-1']);
    expect(
      await noticesOf(() =>
        db.store.oidcPayloads.upsert(payload('Session', 'sess-1', { uid: 'uid-1', payload: { changed: true }, expires_at: soon(300_000) })),
      ),
    ).toEqual([]);
    expect(await noticesOf(() => db.store.oidcPayloads.destroy('Session', 'sess-1'))).toEqual(['p:Session:sess-1']);
    await db.store.oidcPayloads.upsert(payload('Interaction', 'int-1'));
    expect(await noticesOf(() => db.store.oidcPayloads.upsert(payload('Interaction', 'int-1', { payload: { changed: true } })))).toEqual(
      [],
    );
    await db.store.oidcPayloads.upsert(payload('AccessToken', 'at-old', { expires_at: new Date(Date.now() - 1000) }));
    expect(await noticesOf(() => db.store.sweepExpired(new Date()))).toEqual([]);
  });

  test("users and groups: a user changed (but for a sign-in's last_login) or deleted, a membership added or removed name the user; a group renamed or deleted names everyone", async () => {
    const ada = await db.store.users.insert({ username: 'notice-ada', email: 'notice-ada@example.com', name: 'Ada' });
    const staff = await db.store.groups.insert({ name: 'notice-staff' });
    expect(await noticesOf(() => db.store.users.update(ada.id, { is_active: false }))).toEqual([`u:${ada.uuid}`]);
    // A sign-in's last_login alone is silent (migration 0011): no cached answer shows it.
    const signedIn = { action: 'sign_in.succeeded', actor_type: 'user' as const, user_uuid: ada.uuid };
    expect(await noticesOf(() => db.store.credentials.recordLogin(ada.id, new Date(), signedIn))).toEqual([]);
    expect(await noticesOf(() => db.store.credentials.setPasswordHash(ada.id, '$2b$04$changed'))).toEqual([`u:${ada.uuid}`]);
    expect(await noticesOf(() => db.store.groups.addMember(staff.uuid, ada.id))).toEqual([`u:${ada.uuid}`]);
    expect(await noticesOf(() => db.store.groups.removeMember(staff.uuid, ada.id))).toEqual([`u:${ada.uuid}`]);
    await db.store.groups.addMember(staff.uuid, ada.id);
    expect(await noticesOf(() => db.store.groups.update(staff.uuid, { attributes: { floor: 2 } }))).toEqual([]);
    expect(await noticesOf(() => db.store.groups.update(staff.uuid, { name: 'notice-staff-2' }))).toEqual(['*']);
    expect((await noticesOf(() => db.store.groups.delete(staff.uuid))).sort()).toEqual(['*', `u:${ada.uuid}`]);
    expect(await noticesOf(() => db.store.users.delete(ada.id))).toEqual([`u:${ada.uuid}`]);
  });

  test('the triggers announce exactly the models the replicas keep (src/store/oidc-models.ts): changing the table needs a migration', async () => {
    const { rows } = await sql<{ definition: string }>`
      select pg_get_triggerdef(oid) as definition from pg_trigger
      where tgrelid = 'oidc_payloads'::regclass and not tgisinternal order by tgname`.execute(db.database.db);
    expect(rows).toHaveLength(2); // one for updates, one for deletes
    for (const { definition } of rows) {
      const listed =
        /old\.model\)?\s*=\s*ANY\s*\(ARRAY\[([^\]]*)\]/i.exec(definition)?.[1] ?? /old\.model IN \(([^)]*)\)/i.exec(definition)?.[1];
      const models = [...(listed ?? '').matchAll(/'([A-Za-z]+)'/g)].map((match) => match[1]).sort();
      expect(models).toEqual([...modelsThat('cached')].sort());
    }
  });

  test('a change inside a transaction is announced when it commits, and not at all when it rolls back', async () => {
    const bob = await db.store.users.insert({ username: 'notice-bob', email: 'notice-bob@example.com', name: 'Bob' });
    const rolledBack = await noticesOf(() =>
      db.store
        .transaction(async (trx) => {
          await trx.users.update(bob.id, { name: 'Robert' });
          throw new Error('changed my mind');
        })
        .catch(() => {}),
    );
    expect(rolledBack).toEqual([]);
    expect(await noticesOf(() => db.store.transaction((trx) => trx.users.update(bob.id, { name: 'Robert' })))).toEqual([`u:${bob.uuid}`]);
  });
});

(engines.includes('postgres') ? describe : describe.skip)('the read cache when its listening connection is lost (postgres)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase('postgres');
  });
  afterAll(async () => {
    await db?.close();
  });

  test('the cache is off and empty while the listener is away, and on again once it listens', async () => {
    let listening: Listening | undefined;
    const cache = createReadCache({ maxEntries: 100, maxAgeMs: 60_000, fence: () => listening!.fence() });
    const seen: string[] = [];
    const listener = followChanges(cache, createLogger('silent'));
    const recording: NoticeListener = {
      notice: listener.notice,
      up: () => (seen.push('up'), listener.up()),
      down: (error) => (seen.push('down'), listener.down(error)),
    };
    listening = db.database.listen!(recording);
    try {
      await eventually('the listener', () => cache.live);
      let loads = 0;
      const load = async () => ((loads += 1), 'row');
      await cache.read('p:Grant:x', load);
      await cache.read('p:Grant:x', load);
      expect([loads, cache.size]).toEqual([1, 1]);

      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          'select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = $1 and datname = current_database()',
          [LISTENER_NAME],
        );
        expect(rows).toEqual([{ done: true }]);
      } finally {
        await admin.end();
      }
      await eventually('the loss', () => seen.includes('down'));
      expect([cache.live, cache.size]).toEqual([false, 0]);
      await cache.read('p:Grant:x', load);
      await cache.read('p:Grant:x', load);
      expect(loads).toBe(3); // read through, nothing kept

      await eventually('the reconnection', () => cache.live);
      expect(seen).toEqual(['up', 'down', 'up']);
      await cache.read('p:Grant:x', load);
      await cache.read('p:Grant:x', load);
      expect(loads).toBe(4);
    } finally {
      await listening.stop();
    }
  });

  test('fence: once it resolves, every change committed before it was called has been announced here', async () => {
    const notices: string[] = [];
    let up = false;
    const listening = db.database.listen!({ notice: (text) => notices.push(text), up: () => (up = true), down: () => (up = false) });
    try {
      await expect(listening.fence()).rejects.toThrow(/not listening/);
      await eventually('the listener', () => up);
      const user = await db.store.users.insert({ username: 'fence-ada', email: 'fence-ada@example.com', name: 'Ada' });
      for (let i = 0; i < 50; i += 1) {
        await db.store.users.update(user.id, { name: `Ada ${i}` }); // committed on a pool connection
        const since = performance.now(); // as a request that arrived now: it needs every change committed before
        await Promise.all([listening.fence(since), listening.fence(), listening.fence(since)]); // one round trip, shared
        expect(notices.filter((text) => text === `u:${user.uuid}`)).toHaveLength(i + 1);
      }
    } finally {
      await listening.stop();
    }
  });
});
