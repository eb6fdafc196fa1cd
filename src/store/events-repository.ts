/** The transactional outbox and the delivery log (contract.ts): leased claims, one delivery per (event, app, kind), attempts. */
import { sql, type Kysely } from 'kysely';
import type { AttemptOutcome, DeliveryRow, EventsRepository, NewDelivery, OutboxRow } from './contract.js';
import { UUID } from '../uuid.js';
import type { Tables } from './tables.js';
import { collect } from './collect.js';

const outboxColumns = [
  'id',
  'type',
  'body',
  'user_uuid',
  'user_groups',
  'group_name',
  'created_at',
  'claimed_until',
  'dispatched_at',
] as const;

export function eventsRepository(db: Kysely<Tables>): EventsRepository {
  async function ensureDeliveries(deliveries: NewDelivery[]): Promise<DeliveryRow[]> {
    if (!deliveries.length) return [];
    // One insert and one read for a whole relay batch; rows that exist already stay as they are.
    await db
      .insertInto('deliveries')
      .values(deliveries.map((delivery) => ({ ...delivery, last_status_code: null, last_error: null })))
      .onConflict((oc) => oc.columns(['event_id', 'app', 'kind']).doNothing())
      .execute();
    const rows = await db
      .selectFrom('deliveries')
      .selectAll()
      .where('event_id', 'in', [...new Set(deliveries.map((delivery) => delivery.event_id))])
      .execute();
    const byKey = new Map(rows.map((row) => [`${row.event_id}|${row.app}|${row.kind}`, row]));
    return deliveries.map((delivery) => byKey.get(`${delivery.event_id}|${delivery.app}|${delivery.kind}`)!);
  }

  const repository: EventsRepository = {
    async append(event) {
      await db
        .insertInto('outbox')
        .values({
          id: event.id,
          type: event.type,
          body: event.body,
          user_uuid: event.user_uuid ?? null,
          user_groups: event.user_groups ?? [],
          group_name: event.group_name ?? null,
          claimed_until: null,
          dispatched_at: null,
        })
        .execute();
    },

    async claimPending(limit, now, leaseMs) {
      const until = new Date(now.getTime() + leaseMs);
      const rows = (await db
        .updateTable('outbox')
        .set({ claimed_until: until })
        .where(
          'id',
          'in',
          db
            .selectFrom('outbox')
            .select('id')
            .where('dispatched_at', 'is', null)
            .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
            .orderBy('seq')
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .returning([...outboxColumns, sql<string>`seq::text`.as('seq')])
        .execute()) as OutboxRow[];
      return rows.sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));
    },

    async markDispatched(ids, now) {
      if (ids.length) await db.updateTable('outbox').set({ dispatched_at: now }).where('id', 'in', ids).execute();
    },

    async releaseClaims(ids) {
      if (ids.length)
        await db.updateTable('outbox').set({ claimed_until: null }).where('id', 'in', ids).where('dispatched_at', 'is', null).execute();
    },

    find: (id) =>
      db
        .selectFrom('outbox')
        .select([...outboxColumns, sql<string>`seq::text`.as('seq')])
        .where('id', '=', id)
        .executeTakeFirst() as Promise<OutboxRow | undefined>,

    async ensureDelivery(delivery) {
      return (await ensureDeliveries([delivery]))[0]!;
    },

    ensureDeliveries,

    claimStalePending: (before, limit) =>
      db
        .updateTable('deliveries')
        .set({ updated_at: sql`now()` })
        .where(
          'id',
          'in',
          db
            .selectFrom('deliveries')
            .select('id')
            .where('status', '=', 'pending')
            .where('updated_at', '<', before)
            .orderBy('created_at')
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .returningAll()
        .execute(),

    findDelivery: (id) => db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst(),

    async findDeliveriesWithEvents(ids) {
      const found = new Map<string, { delivery: DeliveryRow; event: OutboxRow | undefined }>();
      const valid = ids.filter((id) => UUID.test(id));
      if (!valid.length) return found;
      const rows = await db
        .selectFrom('deliveries')
        .leftJoin('outbox', 'outbox.id', 'deliveries.event_id')
        .selectAll('deliveries')
        .select([
          'outbox.id as o_id',
          'outbox.type as o_type',
          'outbox.body as o_body',
          'outbox.user_uuid as o_user_uuid',
          'outbox.user_groups as o_user_groups',
          'outbox.group_name as o_group_name',
          'outbox.created_at as o_created_at',
          'outbox.claimed_until as o_claimed_until',
          'outbox.dispatched_at as o_dispatched_at',
          sql<string>`outbox.seq::text`.as('o_seq'),
        ])
        .where('deliveries.id', 'in', valid)
        .execute();
      for (const row of rows) {
        const {
          o_id,
          o_type,
          o_body,
          o_user_uuid,
          o_user_groups,
          o_group_name,
          o_created_at,
          o_claimed_until,
          o_dispatched_at,
          o_seq,
          ...delivery
        } = row;
        const event = o_id
          ? ({
              id: o_id,
              type: o_type!,
              body: o_body!,
              user_uuid: o_user_uuid ?? null,
              user_groups: o_user_groups ?? [],
              group_name: o_group_name ?? null,
              created_at: o_created_at!,
              claimed_until: o_claimed_until ?? null,
              dispatched_at: o_dispatched_at ?? null,
              seq: o_seq,
            } as OutboxRow)
          : undefined;
        found.set(delivery.id, { delivery, event });
      }
      return found;
    },

    recordAttempt: (deliveryId, outcome) => repository.recordAttempts([{ deliveryId, outcome }]),

    async recordAttempts(attempts) {
      if (!attempts.length) return;
      // One statement (data-modifying CTEs): atomic by itself, one round trip for all of them, and inside the
      // caller's transaction when there is one, so the attempts roll back with it. A delivery once delivered stays so:
      // a job run twice (its lock lost while the event loop lagged) may log a later failure, which undoes nothing.
      const column = <T>(pick: (outcome: AttemptOutcome & { deliveryId: string }) => T) =>
        attempts.map(({ deliveryId, outcome }) => pick({ ...outcome, deliveryId }));
      await sql`
        with input as (
          select * from unnest(${column((a) => a.deliveryId)}::uuid[], ${column((a) => a.attempt)}::int[], ${column((a) => a.status_code)}::int[],
            ${column((a) => a.error)}::text[], ${column((a) => a.duration_ms)}::int[], ${column((a) => a.status)}::text[])
            as t (delivery_id, attempt, status_code, error, duration_ms, status)
        ), logged as (
          insert into delivery_attempts (delivery_id, attempt, status_code, error, duration_ms)
          select delivery_id, attempt, status_code, error, duration_ms from input
        )
        update deliveries set attempts = deliveries.attempts + 1, updated_at = now(),
          status = case when deliveries.status = 'delivered' then deliveries.status else input.status end,
          last_status_code = case when deliveries.status = 'delivered' then deliveries.last_status_code else input.status_code end,
          last_error = case when deliveries.status = 'delivered' then deliveries.last_error else input.error end
        from input
        where deliveries.id = input.delivery_id`.execute(db);
    },

    async listDeliveries(filter, page) {
      let query = db.selectFrom('deliveries');
      if (filter.status) query = query.where('status', '=', filter.status);
      if (filter.app) query = query.where('app', '=', filter.app);
      if (filter.kind) query = query.where('kind', '=', filter.kind);
      const [{ total }] = await query.select(sql<number>`count(*)::int`.as('total')).execute();
      const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id').offset(page.offset).limit(page.limit).execute();
      return { total, rows };
    },

    async attemptsOf(ids) {
      const rows = ids.length
        ? await db
            .selectFrom('delivery_attempts')
            .selectAll()
            .where('delivery_id', 'in', ids)
            .orderBy('delivery_id')
            .orderBy('id')
            .execute()
        : [];
      return collect(
        ids,
        rows,
        (row) => row.delivery_id,
        (row) => row,
      );
    },

    async restoreDelivery(id, status) {
      await db.updateTable('deliveries').set({ status }).where('id', '=', id).execute();
    },

    reopenDelivery: (id) =>
      db
        .updateTable('deliveries')
        .set({ status: 'pending', updated_at: sql`now()` })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst(),

    async backlog() {
      const row = await db
        .selectFrom('outbox')
        .where('dispatched_at', 'is', null)
        .select((eb) => [eb.fn.countAll<string>().as('pending'), eb.fn.min('created_at').as('oldest')])
        .executeTakeFirstOrThrow();
      return { pending: Number(row.pending), oldest: row.oldest ? new Date(row.oldest as Date) : null };
    },

    async disableEndpoint(app, url, reason) {
      await db
        .insertInto('webhook_endpoints')
        .values({ app, url, reason })
        .onConflict((oc) =>
          oc
            .column('app')
            .doUpdateSet({ url, reason, disabled_at: sql`now()` })
            .where('webhook_endpoints.url', '<>', url),
        )
        .execute();
    },

    disabledEndpoint: (app) => db.selectFrom('webhook_endpoints').selectAll().where('app', '=', app).executeTakeFirst(),

    disabledEndpoints: () => db.selectFrom('webhook_endpoints').selectAll().orderBy('app').execute(),

    async enableEndpoint(app) {
      const result = await db.deleteFrom('webhook_endpoints').where('app', '=', app).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
  return repository;
}
