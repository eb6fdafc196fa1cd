/** The storage contract of the transactional outbox and the delivery log. Part of contract.ts, which re-exports it. */
import type { Selectable } from 'kysely';
import type { DeliveriesTable, DeliveryAttemptsTable, DeliveryKind, DeliveryStatus, OutboxTable, WebhookEndpointsTable } from './tables.js';
import type { Page, Slice } from './contract.js';

// ---- The transactional outbox and the delivery log

/*
 * Storage contract of the transactional outbox and the delivery log (part of the Store contract).
 * Guarantees: an event appended in a transaction exists iff that transaction commits; a claimed event is
 * invisible to other claimers until its lease ends; one delivery per (event, app, kind), however often ensured.
 */
export type OutboxRow = Omit<Selectable<OutboxTable>, 'seq'> & { seq: string };
export type DeliveryRow = Selectable<DeliveriesTable>;
export type DeliveryAttemptRow = Selectable<DeliveryAttemptsTable>;
export type DisabledEndpointRow = Selectable<WebhookEndpointsTable>;

export interface NewEvent {
  id: string;
  type: string;
  /** The exact JSON bytes receivers get. */
  body: string;
  user_uuid?: string | null;
  /** Names of the user's groups when the event happened (who may receive it is decided from these). */
  user_groups?: string[];
  group_name?: string | null;
}

export interface AttemptOutcome {
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** The delivery's state after this attempt. */
  status: DeliveryStatus;
}

export interface NewDelivery {
  event_id: string;
  app: string;
  kind: DeliveryKind;
  target: string;
}

export interface EventsRepository {
  append(event: NewEvent): Promise<void>;
  /** Up to `limit` undispatched events in order, leased for `leaseMs` so concurrent relays skip them. */
  claimPending(limit: number, now: Date, leaseMs: number): Promise<OutboxRow[]>;
  markDispatched(ids: string[], now: Date): Promise<void>;
  /** Ends the lease of claimed events that were not dispatched, so the next round takes them at once. */
  releaseClaims(ids: string[]): Promise<void>;
  find(id: string): Promise<OutboxRow | undefined>;
  /** The delivery of this event to this app, created when missing. */
  ensureDelivery(delivery: NewDelivery): Promise<DeliveryRow>;
  /** ensureDelivery for many at once (a relay batch): the rows in the order asked, created where missing. */
  ensureDeliveries(deliveries: NewDelivery[]): Promise<DeliveryRow[]>;
  findDelivery(id: string): Promise<DeliveryRow | undefined>;
  /**
   * The deliveries and their events in one round trip (the workers' first read, for every job starting at the
   * same moment), by id; an unknown id is absent, an event that is gone undefined.
   */
  findDeliveriesWithEvents(ids: string[]): Promise<Map<string, { delivery: DeliveryRow; event: OutboxRow | undefined }>>;
  /** Pending deliveries untouched since `before` (their job may have been lost with Redis); touches them. */
  claimStalePending(before: Date, limit: number): Promise<DeliveryRow[]>;
  /**
   * Logs an attempt and moves the delivery to `outcome.status`, atomically. A delivered delivery stays delivered
   * (a job run twice may log a later failure); only reopenDelivery puts it back to pending.
   */
  recordAttempt(deliveryId: string, outcome: AttemptOutcome): Promise<void>;
  /** recordAttempt for several deliveries in one statement (attempts ending at the same moment). */
  recordAttempts(attempts: Array<{ deliveryId: string; outcome: AttemptOutcome }>): Promise<void>;
  /** Newest first. */
  listDeliveries(filter: { status?: DeliveryStatus; app?: string; kind?: DeliveryKind }, page: Page): Promise<Slice<DeliveryRow>>;
  attemptsOf(deliveryIds: string[]): Promise<Map<string, DeliveryAttemptRow[]>>;
  /** Puts a delivery back to pending for another round of attempts; undefined when unknown. */
  reopenDelivery(id: string): Promise<DeliveryRow | undefined>;
  /** Undoes a reopen whose enqueue failed. */
  restoreDelivery(id: string, status: DeliveryStatus): Promise<void>;
  /** Events not yet dispatched to the queue, and the creation time of the oldest (null when none). */
  backlog(): Promise<{ pending: number; oldest: Date | null }>;
  /** Stops webhooks to this app's receiver at `url`; a second disable keeps the first time and reason. */
  disableEndpoint(app: string, url: string, reason: string): Promise<void>;
  /** The app's disabled receiver, undefined while enabled. */
  disabledEndpoint(app: string): Promise<DisabledEndpointRow | undefined>;
  /** All disabled receivers, by app. */
  disabledEndpoints(): Promise<DisabledEndpointRow[]>;
  /** Enables the app's receiver again; false when it was not disabled. */
  enableEndpoint(app: string): Promise<boolean>;
}
