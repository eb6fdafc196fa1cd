/**
 * EventsRepository: the transactional outbox (append, leased claims raced by relays on two connections,
 * release, dispatch) and the delivery log (one delivery per event, app and kind however often ensured; stale
 * pending deliveries; attempts recorded atomically with the delivery's state; reopen and restore; listing).
 */
import { randomUUID } from 'node:crypto';
import type { DeliveryStatus, NewEvent, OutboxRow, Store } from '../../../src/store/contract.js';
import { race, secondClient, sleep, useDatabase, type Backend, type Open } from './fixture.js';

const newEvent = (extra: Partial<NewEvent> = {}): NewEvent => {
  const id = randomUUID();
  return { id, type: 'user_updated', body: JSON.stringify({ event_type: 'user_updated', data: { id } }), ...extra };
};
const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);
const FAR_FUTURE = new Date('2100-01-01T00:00:00Z');
const LEASE = 30_000;

export function runEventsConformance(open: Open, backend: Backend): void {
  describe('events', () => {
    const t = useDatabase(open);
    let store: Store;
    beforeAll(() => {
      store = t.store;
    });

    /** Appends `count` events one after the other; returns their ids in append order. */
    async function appendEvents(count: number, target = store): Promise<string[]> {
      const appended: string[] = [];
      for (let i = 0; i < count; i++) {
        const event = newEvent();
        await target.events.append(event);
        appended.push(event.id);
      }
      return appended;
    }

    /** Dispatches whatever earlier tests left pending, so each outbox test starts with none. */
    async function emptyOutbox(): Promise<void> {
      const left = await store.events.claimPending(100_000, FAR_FUTURE, 1);
      await store.events.markDispatched(ids(left), new Date());
    }

    /** A delivery of a fresh event to `app`. */
    async function newDelivery(app = 'wiki', kind: 'webhook' | 'backchannel' = 'webhook') {
      const event = newEvent();
      await store.events.append(event);
      return store.events.ensureDelivery({ event_id: event.id, app, kind, target: `https://${app}.example.com/hook` });
    }

    describe('outbox', () => {
      beforeEach(emptyOutbox);

      test('backlog counts undispatched events and dates the oldest; dispatched ones leave it', async () => {
        expect(await store.events.backlog()).toEqual({ pending: 0, oldest: null });
        const before = Date.now();
        const appended = await appendEvents(2);
        const { pending, oldest } = await store.events.backlog();
        expect(pending).toBe(2);
        expect(Math.abs(oldest!.getTime() - before)).toBeLessThan(60_000);
        await store.events.markDispatched(appended, new Date());
        expect(await store.events.backlog()).toEqual({ pending: 0, oldest: null });
      });

      test('append stores the event as given; find reads it back; unknown ids find nothing', async () => {
        const event = newEvent({
          user_uuid: randomUUID(),
          user_groups: ['staff', 'ops'],
          group_name: 'staff',
          body: '{"exact":  "bytes"}',
        });
        await store.events.append(event);
        expect(await store.events.find(event.id)).toEqual({
          id: event.id,
          type: 'user_updated',
          body: '{"exact":  "bytes"}',
          user_uuid: event.user_uuid,
          user_groups: ['staff', 'ops'],
          group_name: 'staff',
          created_at: expect.any(Date),
          claimed_until: null,
          dispatched_at: null,
          seq: expect.stringMatching(/^\d+$/),
        });
        const bare = newEvent();
        await store.events.append(bare);
        expect(await store.events.find(bare.id)).toMatchObject({ user_uuid: null, user_groups: [], group_name: null });
        expect(await store.events.find(randomUUID())).toBeUndefined();
      });

      test('claimPending returns up to `limit` events in append order, leased until now + leaseMs', async () => {
        const appended = await appendEvents(5);
        const now = new Date();
        const first = await store.events.claimPending(3, now, LEASE);
        expect(ids(first)).toEqual(appended.slice(0, 3));
        const seqs = first.map((row) => BigInt(row.seq));
        expect([...seqs].sort((a, b) => (a < b ? -1 : 1))).toEqual(seqs);
        expect(first.every((row) => row.claimed_until?.getTime() === now.getTime() + LEASE)).toBe(true);
        expect(ids(await store.events.claimPending(10, now, LEASE))).toEqual(appended.slice(3));
        expect(await store.events.claimPending(10, now, LEASE)).toEqual([]);
      });

      test('a claimed event is invisible to other claimers until its lease ends, then it is claimed again', async () => {
        const other = await secondClient(t.db);
        try {
          const appended = await appendEvents(2);
          const t0 = new Date();
          expect(ids(await store.events.claimPending(10, t0, 1000))).toEqual(appended);
          expect(await other.store.events.claimPending(10, new Date(t0.getTime() + 500), 1000)).toEqual([]);
          expect(await store.events.claimPending(10, new Date(t0.getTime() + 999), 1000)).toEqual([]);
          // The relay that held the lease died: once the lease is over, another relay takes the events over.
          const recovered = await other.store.events.claimPending(10, new Date(t0.getTime() + 1001), 1000);
          expect(ids(recovered)).toEqual(appended);
          expect(await store.events.claimPending(10, new Date(t0.getTime() + 1500), 1000)).toEqual([]); // leased anew
        } finally {
          await other.close();
        }
      });

      test('releaseClaims makes undispatched claimed events claimable at once; a dispatched event stays dispatched', async () => {
        const [a, b, c] = await appendEvents(3);
        const now = new Date();
        expect(ids(await store.events.claimPending(10, now, 60_000))).toEqual([a, b, c]);
        await store.events.markDispatched([a!], now);
        await store.events.releaseClaims([a!, b!]);
        expect(ids(await store.events.claimPending(10, now, 60_000))).toEqual([b]); // c is still leased
        await store.events.releaseClaims([]);
        expect(await store.events.find(a!)).toMatchObject({ dispatched_at: now });
      });

      test('markDispatched: a dispatched event is never claimable again, even long after its lease', async () => {
        const [a, b] = await appendEvents(2);
        const now = new Date();
        await store.events.claimPending(10, now, 1000);
        await store.events.markDispatched([a!], now);
        await store.events.markDispatched([], now);
        expect(ids(await store.events.claimPending(10, FAR_FUTURE, 1000))).toEqual([b]);
        expect(await store.events.find(a!)).toMatchObject({ dispatched_at: now });
      });

      test('two relays on two connections racing: every pending event is claimed by exactly one, each batch in append order', async () => {
        // PostgreSQL: two pools, as two replicas. PGlite: one session, so the relays' calls take turns (see secondClient).
        const other = await secondClient(t.db);
        try {
          const appended = await appendEvents(40);
          const now = new Date();
          const relay = async (s: Store) => {
            const claimed: OutboxRow[][] = [];
            for (let batch = await s.events.claimPending(3, now, LEASE); batch.length; batch = await s.events.claimPending(3, now, LEASE))
              claimed.push(batch);
            return claimed;
          };
          const [mine, theirs] = await Promise.all([relay(store), relay(other.store)]);
          const all = [...mine.flat(), ...theirs.flat()];
          expect(new Set(ids(all)).size).toBe(all.length); // nobody claimed an event twice
          expect(ids(all).sort()).toEqual([...appended].sort()); // every pending event was claimed
          for (const batch of [...mine, ...theirs]) {
            const positions = ids(batch).map((id) => appended.indexOf(id));
            expect([...positions].sort((x, y) => x - y)).toEqual(positions);
          }
        } finally {
          await other.close();
        }
      });

      test('a burst of 10 concurrent claims on two connections never hands out one event twice', async () => {
        const other = await secondClient(t.db);
        try {
          const appended = await appendEvents(25);
          const now = new Date();
          const batches = await race(10, (i) => (i % 2 ? other.store : store).events.claimPending(4, now, LEASE));
          const all = batches.flatMap(ids);
          expect(new Set(all).size).toBe(all.length);
          const rest = await store.events.claimPending(100, now, LEASE);
          expect([...all, ...ids(rest)].sort()).toEqual([...appended].sort());
        } finally {
          await other.close();
        }
      });

      test('an event appended in a transaction exists only if the transaction commits', async () => {
        const dropped = newEvent();
        await expect(
          store.transaction(async (tx) => {
            await tx.events.append(dropped);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect(await store.events.find(dropped.id)).toBeUndefined();
        const kept = newEvent();
        await store.transaction((tx) => tx.events.append(kept));
        expect(ids(await store.events.claimPending(10, new Date(), LEASE))).toEqual([kept.id]);
      });

      // Needs a second session while the transaction is open; PGlite is one session (a second caller waits for the transaction).
      (backend.concurrentSessions ? test : test.skip)(
        'a relay on another connection does not see an event before its transaction commits',
        async () => {
          const other = await secondClient(t.db);
          try {
            const event = newEvent();
            await store.transaction(async (tx) => {
              await tx.events.append(event);
              expect(await other.store.events.claimPending(10, new Date(), LEASE)).toEqual([]);
              expect(await other.store.events.find(event.id)).toBeUndefined();
            });
            expect(ids(await other.store.events.claimPending(10, new Date(), LEASE))).toEqual([event.id]);
          } finally {
            await other.close();
          }
        },
      );
    });

    describe('deliveries', () => {
      test('ensureDelivery creates a pending delivery; ensuring it again returns the same one', async () => {
        const event = newEvent();
        await store.events.append(event);
        const first = await store.events.ensureDelivery({ event_id: event.id, app: 'wiki', kind: 'webhook', target: 'https://wiki/hook' });
        expect(first).toMatchObject({
          event_id: event.id,
          app: 'wiki',
          kind: 'webhook',
          target: 'https://wiki/hook',
          status: 'pending',
          attempts: 0,
          last_status_code: null,
          last_error: null,
        });
        const again = await store.events.ensureDelivery({ event_id: event.id, app: 'wiki', kind: 'webhook', target: 'https://wiki/hook' });
        expect(again.id).toBe(first.id);
        expect(await store.events.findDelivery(first.id)).toEqual(again);
        // Another app or another kind is another delivery.
        const otherApp = await store.events.ensureDelivery({ event_id: event.id, app: 'crm', kind: 'webhook', target: 'https://crm/hook' });
        const otherKind = await store.events.ensureDelivery({
          event_id: event.id,
          app: 'wiki',
          kind: 'backchannel',
          target: 'https://wiki/bc',
        });
        expect(new Set([first.id, otherApp.id, otherKind.id]).size).toBe(3);
        expect(await store.events.findDelivery(randomUUID())).toBeUndefined();
      });

      test('findDeliveriesWithEvents: the deliveries and their events as find() returns them, in one read', async () => {
        const event = newEvent();
        await store.events.append(event);
        const delivery = await store.events.ensureDelivery({
          event_id: event.id,
          app: 'joined',
          kind: 'webhook',
          target: 'https://joined/hook',
        });
        await expect(store.events.findDeliveriesWithEvents([delivery.id])).resolves.toEqual(
          new Map([[delivery.id, { delivery, event: await store.events.find(event.id) }]]),
        );
        await expect(store.events.findDeliveriesWithEvents([randomUUID(), 'not-a-uuid'])).resolves.toEqual(new Map());
      });

      test("recordAttempts: several deliveries' attempts in one statement, each logged and moved to its state", async () => {
        const event = newEvent();
        await store.events.append(event);
        const [a, b] = await store.events.ensureDeliveries([
          { event_id: event.id, app: 'batch-a', kind: 'webhook', target: 'https://a/hook' },
          { event_id: event.id, app: 'batch-b', kind: 'webhook', target: 'https://b/hook' },
        ]);
        await store.events.recordAttempts([
          { deliveryId: a!.id, outcome: { attempt: 1, status_code: 204, error: null, duration_ms: 4, status: 'delivered' } },
          { deliveryId: b!.id, outcome: { attempt: 1, status_code: null, error: 'ECONNREFUSED', duration_ms: 1, status: 'pending' } },
        ]);
        expect(await store.events.findDelivery(a!.id)).toMatchObject({
          status: 'delivered',
          attempts: 1,
          last_status_code: 204,
          last_error: null,
        });
        expect(await store.events.findDelivery(b!.id)).toMatchObject({
          status: 'pending',
          attempts: 1,
          last_status_code: null,
          last_error: 'ECONNREFUSED',
        });
        const logged = await store.events.attemptsOf([a!.id, b!.id]);
        expect(logged.get(a!.id)).toMatchObject([{ attempt: 1, status_code: 204, duration_ms: 4 }]);
        expect(logged.get(b!.id)).toMatchObject([{ attempt: 1, error: 'ECONNREFUSED' }]);
        await store.events.recordAttempts([]);
      });

      test('ensureDeliveries: many at once, in the order asked; existing ones come back as they are, with their attempts', async () => {
        const [a, b] = [newEvent(), newEvent()];
        await store.events.append(a);
        await store.events.append(b);
        const known = await store.events.ensureDelivery({ event_id: a.id, app: 'wiki', kind: 'webhook', target: 'https://wiki/hook' });
        await store.events.recordAttempt(known.id, { attempt: 1, status_code: 500, error: 'HTTP 500', duration_ms: 3, status: 'pending' });
        const wanted = [
          { event_id: b.id, app: 'crm', kind: 'webhook' as const, target: 'https://crm/hook' },
          { event_id: a.id, app: 'wiki', kind: 'webhook' as const, target: 'https://wiki/hook' },
          { event_id: a.id, app: 'wiki', kind: 'backchannel' as const, target: 'https://wiki/bc' },
        ];
        const rows = await store.events.ensureDeliveries(wanted);
        expect(rows.map(({ event_id, app, kind }) => ({ event_id, app, kind }))).toEqual(
          wanted.map(({ event_id, app, kind }) => ({ event_id, app, kind })),
        );
        expect(rows[1]).toMatchObject({ id: known.id, attempts: 1, last_status_code: 500 });
        expect(rows[0]).toMatchObject({ status: 'pending', attempts: 0 });
        expect((await store.events.ensureDeliveries(wanted)).map((row) => row.id)).toEqual(rows.map((row) => row.id));
        await expect(store.events.ensureDeliveries([])).resolves.toEqual([]);
      });

      test('10 concurrent ensureDelivery calls for one (event, app, kind), on two connections: one delivery, the same id for all', async () => {
        const other = await secondClient(t.db);
        try {
          const event = newEvent();
          await store.events.append(event);
          const spec = { event_id: event.id, app: 'ensure-race', kind: 'webhook' as const, target: 'https://race/hook' };
          const rows = await race(10, (i) => (i % 2 ? other.store : store).events.ensureDelivery(spec));
          expect(new Set(ids(rows)).size).toBe(1);
          expect((await store.events.listDeliveries({ app: 'ensure-race' }, { offset: 0, limit: 100 })).total).toBe(1);
        } finally {
          await other.close();
        }
      });

      test('recordAttempt logs the attempt and moves the delivery to its status; attemptsOf lists attempts in order', async () => {
        const delivery = await newDelivery('attempts');
        const idle = await newDelivery('attempts');
        await store.events.recordAttempt(delivery.id, {
          attempt: 1,
          status_code: 500,
          error: 'HTTP 500',
          duration_ms: 12,
          status: 'pending',
        });
        expect(await store.events.findDelivery(delivery.id)).toMatchObject({
          status: 'pending',
          attempts: 1,
          last_status_code: 500,
          last_error: 'HTTP 500',
        });
        await store.events.recordAttempt(delivery.id, { attempt: 2, status_code: 200, error: null, duration_ms: 7, status: 'delivered' });
        expect(await store.events.findDelivery(delivery.id)).toMatchObject({
          status: 'delivered',
          attempts: 2,
          last_status_code: 200,
          last_error: null,
        });

        const unknown = randomUUID();
        const attempts = await store.events.attemptsOf([delivery.id, idle.id, unknown]);
        expect(
          attempts.get(delivery.id)!.map(({ attempt, status_code, error, duration_ms }) => ({ attempt, status_code, error, duration_ms })),
        ).toEqual([
          { attempt: 1, status_code: 500, error: 'HTTP 500', duration_ms: 12 },
          { attempt: 2, status_code: 200, error: null, duration_ms: 7 },
        ]);
        expect(attempts.get(delivery.id)![0]).toMatchObject({ delivery_id: delivery.id, at: expect.any(Date) });
        expect(attempts.get(idle.id)).toEqual([]);
        expect(attempts.get(unknown)).toEqual([]);
        expect((await store.events.attemptsOf([])).size).toBe(0);
      });

      test('a delivery once delivered stays delivered: a later attempt (a job run twice) is logged and undoes nothing', async () => {
        const delivery = await newDelivery('twice');
        await store.events.recordAttempt(delivery.id, { attempt: 1, status_code: 204, error: null, duration_ms: 5, status: 'delivered' });
        await store.events.recordAttempt(delivery.id, {
          attempt: 1,
          status_code: 500,
          error: 'HTTP 500',
          duration_ms: 9,
          status: 'failed',
        });
        expect(await store.events.findDelivery(delivery.id)).toMatchObject({
          status: 'delivered',
          attempts: 2,
          last_status_code: 204,
          last_error: null,
        });
        expect((await store.events.attemptsOf([delivery.id])).get(delivery.id)).toHaveLength(2);
      });

      test('recordAttempt is atomic: when moving the delivery fails, no attempt is logged either', async () => {
        const delivery = await newDelivery('atomic');
        // The status is written only by the second step (the delivery update), after the attempt row is inserted:
        // PostgreSQL refuses a NUL character in text, so that step fails after the first one succeeded.
        const unstorable = 'delivered\u0000' as DeliveryStatus;
        await expect(
          store.events.recordAttempt(delivery.id, { attempt: 1, status_code: 200, error: null, duration_ms: 5, status: unstorable }),
        ).rejects.toThrow();
        expect((await store.events.attemptsOf([delivery.id])).get(delivery.id)).toEqual([]);
        expect(await store.events.findDelivery(delivery.id)).toMatchObject({ status: 'pending', attempts: 0, last_status_code: null });
      });

      test("recordAttempt joins the caller's transaction: it rolls back with it", async () => {
        const delivery = await newDelivery('in-transaction');
        await expect(
          store.transaction(async (tx) => {
            await tx.events.recordAttempt(delivery.id, { attempt: 1, status_code: 200, error: null, duration_ms: 5, status: 'delivered' });
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect((await store.events.attemptsOf([delivery.id])).get(delivery.id)).toEqual([]);
        expect(await store.events.findDelivery(delivery.id)).toMatchObject({ status: 'pending', attempts: 0 });
      });

      test('claimStalePending returns pending deliveries untouched since `before` and touches them, so the next call skips them', async () => {
        const stale = await newDelivery('stale');
        const done = await newDelivery('stale');
        await store.events.recordAttempt(done.id, { attempt: 1, status_code: 200, error: null, duration_ms: 1, status: 'delivered' });
        await sleep(50);
        const before = new Date();
        await sleep(50);
        const fresh = await newDelivery('stale');

        const claimed = await store.events.claimStalePending(before, 1000);
        expect(ids(claimed)).toContain(stale.id);
        expect(ids(claimed)).not.toContain(done.id); // not pending
        expect(ids(claimed)).not.toContain(fresh.id); // touched after `before`
        expect(claimed.find((row) => row.id === stale.id)!.updated_at.getTime()).toBeGreaterThan(stale.updated_at.getTime());
        // Within the window, the touched delivery is not handed out again.
        expect(ids(await store.events.claimStalePending(before, 1000))).not.toContain(stale.id);
        expect(await store.events.claimStalePending(new Date(Date.now() + 60_000), 1)).toHaveLength(1); // limit
      });

      test('claimStalePending raced on two connections hands each stale delivery to one caller', async () => {
        const other = await secondClient(t.db);
        try {
          const created: string[] = [];
          for (let i = 0; i < 6; i++) created.push((await newDelivery('stale-race')).id);
          await sleep(20);
          const before = new Date();
          const results = await race(6, (i) => (i % 2 ? other.store : store).events.claimStalePending(before, 2));
          const mine = results.flatMap(ids).filter((id) => created.includes(id));
          expect(new Set(mine).size).toBe(mine.length);
        } finally {
          await other.close();
        }
      });

      test('reopenDelivery puts a delivery back to pending; restoreDelivery undoes it; unknown ids give undefined', async () => {
        const delivery = await newDelivery('reopen');
        await store.events.recordAttempt(delivery.id, {
          attempt: 1,
          status_code: 503,
          error: 'HTTP 503',
          duration_ms: 3,
          status: 'failed',
        });
        const failed = (await store.events.findDelivery(delivery.id))!;
        await sleep(10);
        const reopened = await store.events.reopenDelivery(delivery.id);
        expect(reopened).toMatchObject({ id: delivery.id, status: 'pending', attempts: 1 });
        expect(reopened!.updated_at.getTime()).toBeGreaterThan(failed.updated_at.getTime());
        expect(await store.events.findDelivery(delivery.id)).toMatchObject({ status: 'pending' });
        await store.events.restoreDelivery(delivery.id, 'failed');
        expect(await store.events.findDelivery(delivery.id)).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 503 });
        expect(await store.events.reopenDelivery(randomUUID())).toBeUndefined();
      });

      test('listDeliveries filters by status, app and kind, newest first, with the full total', async () => {
        // PGlite's clock counts milliseconds: deliveries made within one would have no newest.
        const later = async (app: string, kind?: 'webhook' | 'backchannel') => {
          await sleep(2);
          return newDelivery(app, kind);
        };
        const a1 = await newDelivery('list-a');
        const a2 = await later('list-a');
        const a3 = await later('list-a');
        await later('list-b');
        const logout = await later('list-a', 'backchannel');
        expect(ids((await store.events.listDeliveries({ app: 'list-a', kind: 'backchannel' }, { offset: 0, limit: 10 })).rows)).toEqual([
          logout.id,
        ]);
        await store.events.recordAttempt(logout.id, { attempt: 1, status_code: 200, error: null, duration_ms: 1, status: 'delivered' });
        await store.events.recordAttempt(a2.id, { attempt: 1, status_code: 410, error: 'HTTP 410', duration_ms: 1, status: 'failed' });

        const page = { offset: 0, limit: 100 };
        expect(ids((await store.events.listDeliveries({ app: 'list-a', kind: 'webhook' }, page)).rows)).toEqual([a3.id, a2.id, a1.id]);
        expect(await store.events.listDeliveries({ app: 'list-a', status: 'failed' }, page)).toEqual({
          total: 1,
          rows: [expect.objectContaining({ id: a2.id })],
        });
        expect(ids((await store.events.listDeliveries({ app: 'list-a', status: 'pending' }, page)).rows)).toEqual([a3.id, a1.id]);
        const second = await store.events.listDeliveries({ app: 'list-a', kind: 'webhook' }, { offset: 1, limit: 1 });
        expect(second).toEqual({ total: 3, rows: [expect.objectContaining({ id: a2.id })] });
        const failed = await store.events.listDeliveries({ status: 'failed' }, page);
        expect(failed.rows.every((row) => row.status === 'failed')).toBe(true);
        expect(ids(failed.rows)).toContain(a2.id);
        const everything = await store.events.listDeliveries({}, page);
        expect(everything.total).toBeGreaterThanOrEqual(4);
        const times = everything.rows.map((row) => row.created_at.getTime());
        expect([...times].sort((x, y) => y - x)).toEqual(times);
      });
    });

    describe('webhook receivers', () => {
      test('disableEndpoint holds the first reason for the same URL; a new URL replaces it; enableEndpoint clears it once', async () => {
        expect(await store.events.disabledEndpoint('gone-app')).toBeUndefined();
        await store.events.disableEndpoint('gone-app', 'https://a.example/hook', 'answered 410 Gone');
        const first = (await store.events.disabledEndpoint('gone-app'))!;
        expect(first).toMatchObject({ app: 'gone-app', url: 'https://a.example/hook', reason: 'answered 410 Gone' });
        await sleep(10);
        await store.events.disableEndpoint('gone-app', 'https://a.example/hook', 'a second 410');
        expect(await store.events.disabledEndpoint('gone-app')).toEqual(first);
        await store.events.disableEndpoint('gone-app', 'https://b.example/hook', 'the new URL answered 410');
        expect(await store.events.disabledEndpoint('gone-app')).toMatchObject({
          url: 'https://b.example/hook',
          reason: 'the new URL answered 410',
        });
        await store.events.disableEndpoint('other-app', 'https://c.example/hook', 'answered 410 Gone');
        expect((await store.events.disabledEndpoints()).map((row) => row.app).filter((app) => app.endsWith('-app'))).toEqual([
          'gone-app',
          'other-app',
        ]);
        expect(await store.events.enableEndpoint('gone-app')).toBe(true);
        expect(await store.events.enableEndpoint('gone-app')).toBe(false);
        expect(await store.events.disabledEndpoint('gone-app')).toBeUndefined();
      });
    });
  });
}
