/**
 * Per-application webhook state beside the delivery log: a receiver that answered 410 Gone is disabled until
 * the operator enables it again (`idp webhooks enable`). The row remembers the URL that answered, so a new URL
 * in the configuration is not held to the old one's answer.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      app text primary key,
      url text not null,
      disabled_at timestamptz not null default now(),
      reason text not null
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists webhook_endpoints`.execute(db);
}
