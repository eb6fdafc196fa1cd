/**
 * Invitations are links like the administrator's recovery links, with a purpose: a user has at most one live
 * invitation (sending a new one withdraws the old), and the partial index finds it.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table recovery_links
      add column purpose text not null default 'recovery' check (purpose in ('recovery', 'invitation'))`.execute(db);
  await sql`
    create index recovery_links_live_invitations_idx on recovery_links (user_id)
      where purpose = 'invitation' and used_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists recovery_links_live_invitations_idx`.execute(db);
  await sql`alter table recovery_links drop column if exists purpose`.execute(db);
}
