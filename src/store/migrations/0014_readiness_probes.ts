/**
 * Readiness through the store's contract (Dex's create-then-delete): each probe writes a row, reads it back and
 * deletes it, so a database that answers but cannot take writes (a read-only standby after a failover, a read-only
 * role, a full disk) is not ready. The rows live for the length of one probe.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table readiness_probes (id text primary key, at timestamptz not null default now())`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists readiness_probes`.execute(db);
}
