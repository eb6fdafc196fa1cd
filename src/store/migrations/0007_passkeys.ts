/**
 * Passkeys (WebAuthn credentials) and their one-time challenges. The public key is all the service keeps of a
 * passkey; the sign counter only moves forward (compare-and-set), and a challenge is spent by deleting it.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table passkeys (
      id text primary key,
      user_id integer not null references users (id) on delete cascade,
      public_key text not null,
      sign_count bigint not null default 0,
      transports text not null default '',
      device_type text not null,
      backed_up boolean not null,
      name text not null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz
    )`.execute(db);
  await sql`create index passkeys_user_idx on passkeys (user_id)`.execute(db);
  await sql`
    create table webauthn_challenges (
      challenge text primary key,
      purpose text not null,
      expires_at timestamptz not null
    )`.execute(db);
  await sql`create index webauthn_challenges_expires_idx on webauthn_challenges (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists webauthn_challenges`.execute(db);
  await sql`drop table if exists passkeys`.execute(db);
}
