/**
 * What the account page shows of each signed-in browser: its user agent and when it was first and last seen, by the
 * engine's session id. A row outlives its session only until the next sweep.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table session_devices (
      session_id text primary key,
      user_uuid uuid not null,
      user_agent text not null default '',
      first_seen timestamptz not null,
      last_seen timestamptz not null
    )`.execute(db);
  await sql`create index session_devices_user_idx on session_devices (user_uuid)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists session_devices`.execute(db);
}
