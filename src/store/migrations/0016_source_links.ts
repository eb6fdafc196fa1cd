/**
 * Links between people at upstream identity providers and users here (docs/federation.md): (source, subject) names
 * one user, and a user has at most one link per source — unique both ways, so neither a second account nor a second
 * upstream identity can take an account over through the same source. A link ends with its user.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table source_links (
      source text not null,
      subject text not null,
      user_id integer not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      constraint source_links_pkey primary key (source, subject),
      constraint source_links_user_source_key unique (user_id, source)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists source_links`.execute(db);
}
