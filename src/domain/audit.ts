/**
 * The audit trail (who did what, when, from where). The acting party of a request is set once where it is known
 * (the API's token check, the sign-in pages) and read here, so domain operations record events without every
 * signature carrying it; work outside a request is the system's. Callers pass the store of their transaction,
 * so an event lands with its change or not at all. Details name fields, never secret values.
 */
import { fromScope, withinScope } from '../request-scope.js';
import type { ActorType, NewAuditEvent, Store } from '../store/contract.js';
import type { AuditAction } from './audit-actions.js';

export interface Actor {
  type: ActorType;
  /** The API token's id, the user's uuid or the application's client_id. */
  id?: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/** Runs `work` with `actor` as the acting party of every event it records. */
export const actAs = <T>(actor: Actor, work: () => T): T => withinScope({ actor }, work);

/** The acting party right now (the system outside any request). */
export const currentActor = (): Actor => (fromScope('actor') as Actor | undefined) ?? { type: 'system' };

export interface AuditSubject {
  /** The user the event is about. */
  user?: string | null;
  app?: string | null;
  details?: Record<string, unknown>;
  /** Overrides the acting party (a sign-in acts as the user who signed in). */
  actor?: Actor;
}

/** The event as stored, for writes that record it themselves (a sign-in, with its `last_login`). */
export function auditEvent(action: AuditAction, subject: AuditSubject = {}): NewAuditEvent {
  const actor = subject.actor ?? currentActor();
  return {
    action,
    actor_type: actor.type,
    actor: actor.id ?? null,
    user_uuid: subject.user ?? null,
    app: subject.app ?? null,
    ip: actor.ip ?? null,
    user_agent: actor.userAgent?.slice(0, 512) ?? null,
    details: subject.details,
  };
}

export async function audit(store: Store, action: AuditAction, subject: AuditSubject = {}): Promise<void> {
  await store.audit.record(auditEvent(action, subject));
}

/** Audit events older than the retention period go; returns how many. */
export const pruneAudit = (store: Store, retentionDays: number, now = new Date()) =>
  store.audit.prune(new Date(now.getTime() - retentionDays * 86_400_000));
