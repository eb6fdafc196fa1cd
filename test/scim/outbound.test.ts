/**
 * Outbound SCIM against a real SCIM server that is no fake: other instances of this service, each its own
 * receiving application. Through the outbox, relay and BullMQ on real Redis: members of the access group (or
 * everyone) created, updated, deactivated and put in their groups there; a duplicate there linked, not doubled; a
 * receiver that is down logged as failed; a full sync reporting what it changed.
 */
import { sql } from 'kysely';
import { engines } from '../helpers/database.js';
import { privateRedis, uniquePrefix } from '../helpers/redis.js';
import { eventually } from '../helpers/eventually.js';
import { webhookSettings } from '../helpers/webhooks.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CORE_USER, patch, scimClient as testClient, type ScimCall } from '../helpers/scim.js';
import { syncApplication } from '../../src/domain/provisioning.js';
import { scimClient } from '../../src/infra/scim-client.js';

const app = (slug: string, scim: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  slug,
  name: slug,
  client_id: `client-${slug}`,
  client_secret: 'secret-secret-secret',
  redirect_uris: ['http://127.0.0.1/cb'],
  provisioning: { scim: { token_env: 'IDP_TEST_SCIM_TOKEN', ...scim } },
  ...extra,
});

describe.each(engines)('outbound SCIM on %s', (engine) => {
  let crm: TestServer; // receives the members of crm-users
  let everyone: TestServer; // receives every user
  let idp: TestServer;
  let atCrm: ScimCall;
  let atEveryone: ScimCall;
  let group: string;

  beforeAll(async () => {
    [crm, everyone] = await Promise.all([startTestServer(engine), startTestServer(engine)]);
    // One token valid at both receivers (each stores only its hash): the sender reads it from its environment.
    const token = await crm.token(['scim']);
    const hash = (
      await crm.db.database.db.selectFrom('api_tokens').select(['token_hash']).orderBy('created_at', 'desc').executeTakeFirstOrThrow()
    ).token_hash;
    await everyone.db.database.db
      .insertInto('api_tokens')
      .values({ name: 'shared', token_hash: hash, scopes: ['scim'] })
      .execute();
    process.env.IDP_TEST_SCIM_TOKEN = token;
    idp = await startTestServer(
      engine,
      webhookSettings([
        app('crm', { url: `${crm.url}/scim/v2` }, { access_group: 'crm-users' }),
        app('everyone', { url: `${everyone.url}/scim/v2`, scope: 'all' }),
        app('down', { url: 'http://127.0.0.1:1/scim/v2', scope: 'all' }),
      ]),
      { workers: true },
    );
    atCrm = await testClient(crm, token);
    atEveryone = await testClient(everyone, token);
    group = (await idp.api('/api/v3/core/groups/?search=crm-users')).body.results[0].pk;
  });
  afterAll(async () => {
    await idp?.close();
    await crm?.close();
    await everyone?.close();
    delete process.env.IDP_TEST_SCIM_TOKEN;
  });

  const remote = async (at: ScimCall, uuid: string) =>
    (await at(`/Users?filter=${encodeURIComponent(`externalId eq "${uuid}"`)}`)).body.Resources[0] as Record<string, any> | undefined;
  const until = <T>(what: string, probe: () => Promise<T | undefined | false>) =>
    eventually(what, async () => (await probe()) || undefined, 20_000) as Promise<T>;
  const create = async (n: string, extra: Record<string, unknown> = {}) =>
    (
      await idp.api('/api/v3/core/users/', {
        json: { username: `${n}@example.com`, email: `${n}@example.com`, name: `Person ${n}`, ...extra },
      })
    ).body;

  test('every user reaches the application that gets everyone; created, renamed, deactivated there', async () => {
    const user = await create('newcomer', { attributes: { first_name: 'New', last_name: 'Comer' } });
    const there = await until('the user exists remotely', () => remote(atEveryone, user.uuid));
    expect(there).toMatchObject({
      userName: 'newcomer@example.com',
      displayName: 'Person newcomer',
      name: { givenName: 'New', familyName: 'Comer' },
      emails: [{ value: 'newcomer@example.com' }],
      active: true,
    });
    await idp.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { name: 'Renamed Newcomer' } });
    await until('the rename arrived', async () => (await remote(atEveryone, user.uuid))?.displayName === 'Renamed Newcomer');
    await idp.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { is_active: false } });
    await until('the deactivation arrived', async () => (await remote(atEveryone, user.uuid))?.active === false);
    // Never at the access-group application: not a member.
    expect(await remote(atCrm, user.uuid)).toBeUndefined();
  });

  test('the access group: a member arrives with the group; removed, deactivated there and out of the group', async () => {
    const user = await create('member');
    await idp.api(`/api/v3/core/groups/${group}/add_user/`, { json: { pk: user.pk } });
    const there = await until('the member exists remotely', () => remote(atCrm, user.uuid));
    expect(there.active).toBe(true);
    const remoteGroup = async () =>
      (await atCrm(`/Groups?filter=${encodeURIComponent(`externalId eq "${group}"`)}`)).body.Resources[0] as
        Record<string, any> | undefined;
    const withMember = await until('the group exists remotely with the member', async () => {
      const found = await remoteGroup();
      return found?.members?.some((m: { value: string }) => m.value === there.id) && found;
    });
    expect(withMember.displayName).toBe('crm-users');

    await idp.api(`/api/v3/core/groups/${group}/remove_user/`, { json: { pk: user.pk } });
    await until('the removal arrived', async () => (await remote(atCrm, user.uuid))?.active === false);
    await until('the membership left', async () => !(await remoteGroup())?.members?.some((m: { value: string }) => m.value === there.id));
  });

  test('a group follows its changes there: renamed (a member added just before the rename too), deleted', async () => {
    const team = (await idp.api('/api/v3/core/groups/', { json: { name: 'team-blue' } })).body;
    const [first, second] = [await create('blue-one'), await create('blue-two')];
    const remoteTeam = async () =>
      (await atEveryone(`/Groups?filter=${encodeURIComponent(`externalId eq "${team.pk}"`)}`)).body.Resources[0] as
        Record<string, any> | undefined;
    const membersThere = async () => ((await remoteTeam())?.members ?? []).map((member: { display: string }) => member.display);
    await idp.api(`/api/v3/core/groups/${team.pk}/add_user/`, { json: { pk: first.pk } });
    await until('the group exists there with its member', async () => (await membersThere()).includes('Person blue-one'));

    // The second member's event names the group by its old name; the push finds it by its id.
    await idp.api(`/api/v3/core/groups/${team.pk}/add_user/`, { json: { pk: second.pk } });
    expect((await idp.api(`/api/v3/core/groups/${team.pk}/`, { method: 'PATCH', json: { name: 'team-green' } })).status).toBe(200);
    const renamed = await until('renamed there, with both members', async () => {
      const found = await remoteTeam();
      return found?.displayName === 'team-green' && found.members?.length === 2 && found;
    });
    expect(renamed.members.map((member: { display: string }) => member.display).sort()).toEqual(['Person blue-one', 'Person blue-two']);

    expect((await idp.api(`/api/v3/core/groups/${team.pk}/`, { method: 'DELETE' })).status).toBe(204);
    await until('deleted there', async () => (await remoteTeam()) === undefined);
    expect((await remote(atEveryone, first.uuid))?.active).toBe(true); // its members stay, as here
    expect((await atEveryone(`/Groups?filter=${encodeURIComponent('displayName eq "team-green"')}`)).body.totalResults).toBe(0);
  });

  test('Redis stopped: changes wait in the outbox and reach the application once it is back', async () => {
    const redis = await privateRedis();
    const sender = await startTestServer(
      engine,
      {
        ...webhookSettings([app('everyone-again', { url: `${everyone.url}/scim/v2`, scope: 'all' })]),
        redis: { url: redis.url, prefix: uniquePrefix() },
      },
      { workers: true },
    );
    try {
      await redis.stop();
      const made = await sender.api('/api/v3/core/users/', {
        json: { username: 'outage@example.com', email: 'outage@example.com', name: 'During The Outage' },
      });
      expect(made.status).toBe(201); // the API does not need Redis
      await sender.api(`/api/v3/core/users/${made.body.pk}/`, { method: 'PATCH', json: { name: 'Renamed In The Outage' } });
      const waiting = async () =>
        (await sql<{ n: number }>`select count(*)::int as n from outbox where dispatched_at is null`.execute(sender.db.database.db))
          .rows[0]!.n;
      await until('both events wait in the outbox', async () => (await waiting()) === 2);
      expect(await remote(atEveryone, made.body.uuid)).toBeUndefined();

      await redis.start();
      const there = await until('the user arrived, as it is now', async () => {
        const found = await remote(atEveryone, made.body.uuid);
        return found?.displayName === 'Renamed In The Outage' && found;
      });
      expect(there).toMatchObject({ userName: 'outage@example.com', active: true });
      await until('both events dispatched', async () => (await waiting()) === 0);
    } finally {
      await sender.close();
      await redis.stop();
    }
  });

  test('a user the receiver already has (same userName) is found and linked, not doubled', async () => {
    const existing = await atEveryone('/Users', {
      json: { schemas: [CORE_USER], userName: 'twin@example.com', displayName: 'Old Twin', emails: [{ value: 'twin@example.com' }] },
    });
    expect(existing.status).toBe(201);
    const user = await create('twin');
    const linked = await until('the remote user carries our id', () => remote(atEveryone, user.uuid));
    expect(linked).toMatchObject({ id: existing.body.id, displayName: 'Person twin' });
    expect((await atEveryone(`/Users?filter=${encodeURIComponent('userName eq "twin@example.com"')}`)).body.totalResults).toBe(1);
  });

  test("409 on create that no lookup explains: the delivery fails at once with the receiver's answer, nothing doubled", async () => {
    // The receiver holds the address under another userName: its create answers 409, its lookups find nobody.
    await atEveryone('/Users', { json: { schemas: [CORE_USER], userName: 'someone-else', emails: [{ value: 'clash@example.com' }] } });
    await create('clash');
    const failed = await until('the delivery failed', async () => {
      const page = (await idp.api('/api/v3/events/deliveries/?app=everyone&status=failed&page_size=100')).body.results as Array<
        Record<string, any>
      >;
      return page.find((delivery) => delivery.kind === 'scim' && delivery.last_status_code === 409);
    });
    expect(failed.attempts).toBe(1); // a 409 will not heal by retrying
    expect((await atEveryone(`/Users?filter=${encodeURIComponent('emails.value eq "clash@example.com"')}`)).body.totalResults).toBe(1);
  });

  test('a receiver that is down: each attempt logged, the delivery failed after its retries, visible in the log', async () => {
    const user = await create('unreachable');
    const failed = await until('the delivery to the down receiver failed', async () => {
      const page = (await idp.api('/api/v3/events/deliveries/?app=down&status=failed&page_size=100')).body.results as Array<
        Record<string, any>
      >;
      const found = page.find((delivery) => delivery.kind === 'scim');
      return found && (await idp.api(`/api/v3/events/deliveries/${found.id}/`)).body;
    });
    expect(failed).toMatchObject({ kind: 'scim', target: 'http://127.0.0.1:1/scim/v2', attempts: 4, last_status_code: null });
    expect(failed.last_error).toBeTruthy();
    // The other applications were not held up.
    await until('the user reached the other receiver', () => remote(atEveryone, user.uuid));
  });

  test('a full sync pushes what is missing and reports it; a second one changes nothing new', async () => {
    // A change made behind the outbox's back (straight in the receiver) is repaired by the sync.
    const user = await create('drifted');
    const there = await until('the user exists remotely', () => remote(atEveryone, user.uuid));
    await atEveryone(`/Users/${there.id}`, { method: 'PATCH', json: patch({ op: 'replace', path: 'displayName', value: 'Drifted Away' }) });
    const settings = idp.settings.applications.find((candidate) => candidate.slug === 'everyone')!;
    const client = scimClient({
      url: `${everyone.url}/scim/v2`,
      token: process.env.IDP_TEST_SCIM_TOKEN!,
      timeoutMs: 5000,
      allowInsecureLoopback: true,
    });
    const report = await syncApplication(idp.db.store, settings, client);
    expect(report.updated).toBeGreaterThan(0);
    expect(report.created).toBe(0);
    expect(report.failed).toBe(1); // the clash of the test before
    expect(report.failures[0]).toContain('clash@example.com');
    expect((await remote(atEveryone, user.uuid))?.displayName).toBe('Person drifted');
  });
});
