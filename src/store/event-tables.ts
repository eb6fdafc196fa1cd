/** Row types of the outbox and the delivery log (migration 0003) and of the webhook endpoint state (0005). */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface OutboxTable {
  id: string;
  seq: Generated<string>;
  type: string;
  body: string;
  user_uuid: string | null;
  user_groups: string[];
  group_name: string | null;
  created_at: Timestamp;
  claimed_until: Date | null;
  dispatched_at: Date | null;
}

export type DeliveryKind = 'webhook' | 'backchannel';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveriesTable {
  id: Generated<string>;
  event_id: string;
  app: string;
  kind: DeliveryKind;
  target: string;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  at: Timestamp;
}

/** A webhook receiver the sender stopped using (410 Gone); no row = enabled. */
export interface WebhookEndpointsTable {
  app: string;
  /** The URL that answered; the state holds only while the application's configured URL is the same. */
  url: string;
  disabled_at: Timestamp;
  reason: string;
}
