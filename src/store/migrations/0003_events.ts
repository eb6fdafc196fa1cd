/**
 * The transactional outbox and the delivery log. An event row is written in the same transaction as the
 * change it describes; its body is kept as the exact bytes to send, so every attempt is signed identically.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table outbox (
      id uuid primary key,
      seq bigint generated always as identity,
      type text not null,
      body text not null,
      user_uuid uuid,
      user_groups text[] not null default '{}',
      group_name text,
      created_at timestamptz not null default now(),
      claimed_until timestamptz,
      dispatched_at timestamptz
    )`.execute(db);
  await sql`create index outbox_pending_idx on outbox (seq) where dispatched_at is null`.execute(db);

  await sql`
    create table deliveries (
      id uuid primary key default gen_random_uuid(),
      event_id uuid not null references outbox (id) on delete cascade,
      app text not null,
      kind text not null,
      target text not null,
      status text not null default 'pending',
      attempts integer not null default 0,
      last_status_code integer,
      last_error text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (event_id, app, kind)
    )`.execute(db);
  await sql`create index deliveries_status_idx on deliveries (status, created_at)`.execute(db);

  await sql`
    create table delivery_attempts (
      id integer generated always as identity primary key,
      delivery_id uuid not null references deliveries (id) on delete cascade,
      attempt integer not null,
      status_code integer,
      error text,
      duration_ms integer not null,
      at timestamptz not null default now()
    )`.execute(db);
  await sql`create index delivery_attempts_delivery_idx on delivery_attempts (delivery_id, attempt)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['delivery_attempts', 'deliveries', 'outbox']) await sql`drop table if exists ${sql.table(table)}`.execute(db);
}
