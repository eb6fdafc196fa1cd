/**
 * An e-mail address change waiting for its confirmation code (the account page): one per user, the new address,
 * a keyed hash of the code mailed there, its attempts and expiry. Spent by deleting it (compare-and-set on the
 * code's hash), so two requests with the right code never both change the address.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table email_changes (
      user_id integer primary key references users (id) on delete cascade,
      email text not null,
      code_hash text not null,
      attempts integer not null default 0,
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index email_changes_expires_idx on email_changes (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists email_changes`.execute(db);
}
