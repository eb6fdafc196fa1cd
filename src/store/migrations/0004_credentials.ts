/**
 * Second factors and password setup: TOTP secrets (encrypted by the domain layer), hashed recovery codes,
 * hashed e-mailed setup codes and hashed recovery-link tokens. Every single-use row is consumed by a
 * compare-and-set update, so two concurrent requests never both succeed.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table totp_credentials (
      user_id integer primary key references users (id) on delete cascade,
      encrypted_secret text not null,
      confirmed_at timestamptz,
      last_used_step bigint not null default -1,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table recovery_codes (
      user_id integer not null references users (id) on delete cascade,
      code_hash text not null,
      used_at timestamptz,
      primary key (user_id, code_hash)
    )`.execute(db);
  await sql`
    create table password_setup_codes (
      id text primary key,
      user_id integer not null references users (id) on delete cascade,
      code_hash text not null,
      attempts integer not null default 0,
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db);
  await sql`create index password_setup_codes_expires_idx on password_setup_codes (expires_at)`.execute(db);
  await sql`
    create table recovery_links (
      token_hash text primary key,
      user_id integer not null references users (id) on delete cascade,
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db);
  await sql`create index recovery_links_expires_idx on recovery_links (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['recovery_links', 'password_setup_codes', 'recovery_codes', 'totp_credentials']) {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
  }
}
