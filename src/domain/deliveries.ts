/** The delivery log: what was sent where, every attempt, and redelivery of failures. */
import type { DeliveryKind, DeliveryRow, DeliveryStatus, Page, Store } from '../store/contract.js';
import { NotFoundError } from '../errors.js';

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string | null;
  app: string;
  kind: string;
  target: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  attempt_log: Array<{ attempt: number; status_code: number | null; error: string | null; duration_ms: number; at: string }>;
}

/** Puts a delivery on the queue again; `enqueue` is the producer (it throws while the queue is unreachable). */
export type Enqueue = (delivery: DeliveryRow) => Promise<void>;

async function views(store: Store, rows: DeliveryRow[]): Promise<DeliveryView[]> {
  const attempts = await store.events.attemptsOf(rows.map((row) => row.id));
  return Promise.all(
    rows.map(async (row) => ({
      id: row.id,
      event_id: row.event_id,
      event_type: (await store.events.find(row.event_id))?.type ?? null,
      app: row.app,
      kind: row.kind,
      target: row.target,
      status: row.status,
      attempts: row.attempts,
      last_status_code: row.last_status_code,
      last_error: row.last_error,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      attempt_log: attempts.get(row.id)!.map((a) => ({
        attempt: a.attempt,
        status_code: a.status_code,
        error: a.error,
        duration_ms: a.duration_ms,
        at: a.at.toISOString(),
      })),
    })),
  );
}

export async function listDeliveries(store: Store, filter: { status?: DeliveryStatus; app?: string; kind?: DeliveryKind }, page: Page) {
  const { total, rows } = await store.events.listDeliveries(filter, page);
  return { total, results: await views(store, rows) };
}

export async function getDelivery(store: Store, id: string): Promise<DeliveryView> {
  const row = await store.events.findDelivery(id);
  if (!row) throw new NotFoundError('delivery');
  return (await views(store, [row]))[0]!;
}

/** Reopens the delivery and queues a fresh round of attempts; if queueing fails the delivery keeps its old state. */
export async function redeliver(store: Store, id: string, enqueue: Enqueue): Promise<DeliveryView> {
  const before = await store.events.findDelivery(id);
  if (!before) throw new NotFoundError('delivery');
  const reopened = (await store.events.reopenDelivery(id))!;
  try {
    await enqueue(reopened);
  } catch (error) {
    await store.events.restoreDelivery(id, before.status);
    throw error;
  }
  return getDelivery(store, id);
}
