/** OpenID Connect state: the engine's payloads (codes, tokens, sessions, grants…), signing keys, sign-in. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table oidc_payloads (
      model text not null,
      id text not null,
      payload jsonb not null,
      grant_id text,
      user_code text,
      uid text,
      account_id text,
      client_id text,
      expires_at timestamptz,
      consumed_at timestamptz,
      primary key (model, id)
    )`.execute(db);
  // findByUid runs on every request that carries a session cookie.
  await sql`create index oidc_payloads_uid_idx on oidc_payloads (uid) where uid is not null`.execute(db);
  await sql`create index oidc_payloads_grant_idx on oidc_payloads (grant_id) where grant_id is not null`.execute(db);
  await sql`create index oidc_payloads_account_idx on oidc_payloads (account_id) where account_id is not null`.execute(db);
  await sql`create index oidc_payloads_user_code_idx on oidc_payloads (user_code) where user_code is not null`.execute(db);
  await sql`create index oidc_payloads_expires_idx on oidc_payloads (expires_at) where expires_at is not null`.execute(db);

  await sql`
    create table signing_keys (
      kid text primary key,
      encrypted_jwk text not null,
      state text not null check (state in ('active', 'retired')),
      created_at timestamptz not null default now(),
      retired_at timestamptz
    )`.execute(db);
  // At most one active key: rotation flips states inside one transaction.
  await sql`create unique index signing_keys_one_active on signing_keys (state) where state = 'active'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists signing_keys`.execute(db);
  await sql`drop table if exists oidc_payloads`.execute(db);
}
