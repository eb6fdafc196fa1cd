/**
 * Signing keys per algorithm: ID tokens may be signed with RS256, ES256 or EdDSA (per application), so each
 * algorithm has its own active key, rotated together; the keys stored before are RS256. The default stays on the
 * column for rows a release from before this one writes during a rolling upgrade (they only know RS256).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table signing_keys add column alg text not null default 'RS256' check (alg in ('RS256', 'ES256', 'EdDSA'))`.execute(db);
  // At most one active key per algorithm: a rotation flips every algorithm's states inside one transaction.
  await sql`drop index signing_keys_one_active`.execute(db);
  await sql`create unique index signing_keys_one_active_per_alg on signing_keys (alg) where state = 'active'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The release before knows RS256 keys only: the others go with the column.
  await sql`delete from signing_keys where alg <> 'RS256'`.execute(db);
  await sql`drop index signing_keys_one_active_per_alg`.execute(db);
  await sql`alter table signing_keys drop column alg`.execute(db);
  await sql`create unique index signing_keys_one_active on signing_keys (state) where state = 'active'`.execute(db);
}
