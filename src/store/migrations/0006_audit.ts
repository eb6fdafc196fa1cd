/**
 * The audit trail: who did what, when and from where — sign-ins, second factors, passwords, logouts, revoked
 * tokens and every provisioning change. Rows are written in the same transaction as the change they describe
 * and pruned after audit.retention_days.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table audit_events (
      id bigserial primary key,
      at timestamptz not null default now(),
      action text not null,
      actor_type text not null,
      actor text,
      user_uuid uuid,
      app text,
      ip text,
      user_agent text,
      details jsonb not null default '{}'::jsonb
    )`.execute(db);
  await sql`create index audit_events_at on audit_events (at)`.execute(db);
  await sql`create index audit_events_user on audit_events (user_uuid, id)`.execute(db);
  await sql`create index audit_events_app on audit_events (app, id)`.execute(db);
  await sql`create index audit_events_action on audit_events (action, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists audit_events`.execute(db);
}
