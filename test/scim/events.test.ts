/**
 * A change through SCIM is the change through the provisioning API: the same webhook events (outbox → relay →
 * BullMQ on real Redis → a real receiver), the same bodies but for the user, for rename, group membership added
 * and removed (an access group too), deactivation and delete.
 */
import { engines } from '../helpers/database.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { webhookSettings } from '../helpers/webhooks.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CORE_USER, patch, scimClient, type ScimCall } from '../helpers/scim.js';

const app = (slug: string, url: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: slug,
  client_id: `client-${slug}`,
  client_secret: 'secret-secret-secret',
  redirect_uris: ['http://127.0.0.1/cb'],
  webhook: { url, secret: 'whsec-test-0123456789abcdef' },
  ...extra,
});

interface Hit {
  event_type: string;
  data: Record<string, unknown>;
}

describe.each(engines)('SCIM and API emit the same events on %s', (engine) => {
  let all: Receiver;
  let staffOnly: Receiver;
  let s: TestServer;
  let scim: ScimCall;
  let staff: string;

  beforeAll(async () => {
    all = await startReceiver();
    staffOnly = await startReceiver();
    s = await startTestServer(
      engine,
      webhookSettings([app('everyone', all.url), app('staff-app', staffOnly.url, { access_group: 'staff' })]),
      { workers: true },
    );
    scim = await scimClient(s);
    staff = (await s.api('/api/v3/core/groups/?search=staff')).body.results.find((g: { name: string }) => g.name === 'staff').pk;
  });
  afterAll(async () => {
    await s.close();
    await all.close();
    await staffOnly.close();
  });

  const hitsFor = (receiver: Receiver, uuid: string): Hit[] =>
    receiver.received.map((hit) => JSON.parse(hit.raw.toString('utf8')) as Hit).filter((body) => body.data.user_id === uuid);
  /** What an event says, without whom it is about (the two users differ). */
  const shape = (hits: Hit[]) =>
    hits.map(({ event_type, data: { user_id: _id, user_email: _email, ...rest } }) => ({ event_type, ...rest }));
  const outbox = async (uuid: string) =>
    (await s.db.database.db.selectFrom('outbox').select(['type', 'body']).where('user_uuid', '=', uuid).orderBy('seq').execute()).map(
      (row) => ({ type: row.type, ...(({ user_id: _id, user_email: _email, ...rest }) => rest)(JSON.parse(row.body).data) }),
    );

  test('rename, join and leave the access group, deactivate, delete: same events, same receivers', async () => {
    // Through the API.
    const viaApi = (
      await s.api('/api/v3/core/users/', { json: { username: 'api@example.com', email: 'api@example.com', name: 'Api Person' } })
    ).body;
    await s.api(`/api/v3/core/users/${viaApi.pk}/`, { method: 'PATCH', json: { name: 'Api Renamed' } });
    await s.api(`/api/v3/core/groups/${staff}/add_user/`, { json: { pk: viaApi.pk } });
    await s.api(`/api/v3/core/groups/${staff}/remove_user/`, { json: { pk: viaApi.pk } });
    await s.api(`/api/v3/core/groups/${staff}/add_user/`, { json: { pk: viaApi.pk } });
    await s.api(`/api/v3/core/users/${viaApi.pk}/`, { method: 'PATCH', json: { is_active: false } });
    await s.api(`/api/v3/core/users/${viaApi.pk}/`, { method: 'PATCH', json: { is_active: true } });
    await s.api(`/api/v3/core/users/${viaApi.pk}/`, { method: 'DELETE' });

    // Through SCIM, as Entra ID sends it.
    const viaScim = (
      await scim('/Users', {
        json: {
          schemas: [CORE_USER],
          userName: 'scim@example.com',
          displayName: 'Scim Person',
          emails: [{ value: 'scim@example.com', primary: true }],
        },
      })
    ).body;
    expect(viaScim.id).toBeDefined();
    await scim(`/Users/${viaScim.id}`, { method: 'PATCH', json: patch({ op: 'Replace', path: 'displayName', value: 'Scim Renamed' }) });
    await scim(`/Groups/${staff}`, { method: 'PATCH', json: patch({ op: 'Add', path: 'members', value: [{ value: viaScim.id }] }) });
    await scim(`/Groups/${staff}`, { method: 'PATCH', json: patch({ op: 'Remove', path: `members[value eq "${viaScim.id}"]` }) });
    await scim(`/Groups/${staff}`, { method: 'PATCH', json: patch({ op: 'Add', path: 'members', value: [{ value: viaScim.id }] }) });
    await scim(`/Users/${viaScim.id}`, { method: 'PATCH', json: patch({ op: 'Replace', path: 'active', value: 'False' }) });
    await scim(`/Users/${viaScim.id}`, { method: 'PATCH', json: patch({ op: 'Replace', path: 'active', value: 'True' }) });
    expect((await scim(`/Users/${viaScim.id}`, { method: 'DELETE' })).status).toBe(204);

    // The outbox holds the same events for both, in the same order.
    const expected = [
      { type: 'user_updated', changed: ['name'] },
      { type: 'group_membership_change', group_name: 'staff', group_id: staff, action: 'added' },
      { type: 'group_membership_change', group_name: 'staff', group_id: staff, action: 'removed' },
      { type: 'group_membership_change', group_name: 'staff', group_id: staff, action: 'added' },
      { type: 'user_deactivated' },
      { type: 'user_updated', changed: ['is_active'] },
      { type: 'user_deactivated' },
    ];
    expect(await outbox(viaApi.uuid)).toEqual(expected);
    expect(await outbox(viaScim.id)).toEqual(expected);

    // And both receivers hear the same about each: everyone's app all of it, the staff app its group's members.
    await all.waitFor(14);
    const sorted = (hits: Hit[]) =>
      shape(hits)
        .map((hit) => JSON.stringify(hit))
        .sort();
    expect(sorted(hitsFor(all, viaScim.id))).toEqual(sorted(hitsFor(all, viaApi.uuid)));
    expect(hitsFor(all, viaScim.id)).toHaveLength(7);
    const staffHits = async (uuid: string) => {
      const deadline = Date.now() + 20_000;
      while (hitsFor(staffOnly, uuid).length < hitsFor(staffOnly, viaApi.uuid).length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return sorted(hitsFor(staffOnly, uuid));
    };
    expect(hitsFor(staffOnly, viaApi.uuid).length).toBeGreaterThan(0);
    expect(await staffHits(viaScim.id)).toEqual(sorted(hitsFor(staffOnly, viaApi.uuid)));
  });

  test('the audit trail records the same actions for both doors', async () => {
    const actions = async (uuid: string) =>
      (
        await s.db.database.db
          .selectFrom('audit_events')
          .select(['action', 'actor_type'])
          .where('user_uuid', '=', uuid)
          .orderBy('at')
          .orderBy('id')
          .execute()
      ).map((row) => `${row.actor_type}:${row.action}`);
    const api = (await s.api('/api/v3/core/users/', { json: { username: 'api2@example.com', email: 'api2@example.com', name: 'Api Two' } }))
      .body;
    await s.api(`/api/v3/core/users/${api.pk}/`, { method: 'PATCH', json: { name: 'Api Two Renamed' } });
    const viaScim = (await scim('/Users', { json: { schemas: [CORE_USER], userName: 'scim2@example.com', displayName: 'Scim Two' } })).body;
    await scim(`/Users/${viaScim.id}`, { method: 'PATCH', json: patch({ op: 'replace', path: 'displayName', value: 'Scim Two Renamed' }) });
    expect(await actions(viaScim.id)).toEqual(await actions(api.uuid));
    expect(await actions(api.uuid)).toEqual(['api_token:user.created', 'api_token:user.updated']);
  });
});
