/**
 * Storage contract of the audit trail. Append-only: a row is never changed, only pruned after the retention
 * period. Details never hold secret values (the domain layer decides what goes in).
 */
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Page, Slice } from './contract.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** user: a person signed in; api_token: the provisioning API; client: an application (OAuth); system: no request. */
export type ActorType = 'user' | 'api_token' | 'client' | 'system' | 'anonymous';

export interface AuditEventsTable {
  id: Generated<string>;
  at: Timestamp;
  action: string;
  actor_type: ActorType;
  /** The API token's id, the user's uuid or the application's client_id; null for system and anonymous actors. */
  actor: string | null;
  /** The user the event is about, when there is one. */
  user_uuid: string | null;
  app: string | null;
  ip: string | null;
  user_agent: string | null;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
}

export type AuditRow = Selectable<AuditEventsTable>;

export interface NewAuditEvent {
  action: string;
  actor_type: ActorType;
  actor?: string | null;
  user_uuid?: string | null;
  app?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditFilter {
  user?: string;
  app?: string;
  action?: string;
  /** Inclusive bounds on `at`. */
  since?: Date;
  until?: Date;
}

export interface AuditRepository {
  /** Appends one event (inside the caller's transaction when there is one). */
  record(event: NewAuditEvent): Promise<void>;
  /** Newest first, with the total matching. */
  list(filter: AuditFilter, page: Page): Promise<Slice<AuditRow>>;
  /** Deletes events older than `before`; returns how many. */
  prune(before: Date): Promise<number>;
}
