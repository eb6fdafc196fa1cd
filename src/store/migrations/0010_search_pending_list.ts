/**
 * The user search's trigram indexes keep a short pending list (256 kB instead of PostgreSQL's 4 MB). New index
 * entries wait in that list until it is full or a vacuum merges them, and every search reads the whole list
 * first: after a bulk import of 100,000 users a search took 86 ms instead of 6 until autovacuum came by. With a
 * short list the merge comes often and stays cheap, and imports keep their speed (`fastupdate = off` made one
 * ten times slower).
 */
import { sql, type Kysely } from 'kysely';

const INDEXES = ['users_name_trgm', 'users_email_trgm'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) {
    await sql`alter index ${sql.ref(index)} set (gin_pending_list_limit = 256)`.execute(db);
    // What is pending already moves into the index now, not at the next vacuum.
    await sql`select gin_clean_pending_list(${index}::regclass)`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) await sql`alter index ${sql.ref(index)} reset (gin_pending_list_limit)`.execute(db);
}
