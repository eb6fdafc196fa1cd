/** The admin console filters the audit trail by who acted: an index on the actor, newest first. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index audit_events_actor_idx on audit_events (actor, id desc) where actor is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists audit_events_actor_idx`.execute(db);
}
