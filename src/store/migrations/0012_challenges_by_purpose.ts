/**
 * WebAuthn challenges are found by their purpose (a sign-in or an account session) when a new one is saved: the
 * purpose keeps only its newest few, so no caller can pile rows up under one sign-in (passkeys-repository.ts).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index webauthn_challenges_purpose_idx on webauthn_challenges (purpose, expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists webauthn_challenges_purpose_idx`.execute(db);
}
