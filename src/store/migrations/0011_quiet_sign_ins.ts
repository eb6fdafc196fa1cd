/**
 * A sign-in's `last_login` is not announced (migration 0008 announced every update of a user). Each sign-in
 * writes it, and each notice is dear: PostgreSQL serialises the commits of every transaction that notifies, and
 * the replica that read the user a moment before, for the access-group check, would drop the copy its code
 * exchange is about to use. Nothing answered from a replica's copy shows `last_login` (the API reads the
 * database). Every other update of a user, and every delete, is announced as before.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger users_changed on users`.execute(db);
  await sql`create trigger users_deleted after delete on users for each row execute function idp_notice_user()`.execute(db);
  await sql`
    create trigger users_changed after update on users for each row
    when ((to_jsonb(old) - 'last_login') is distinct from (to_jsonb(new) - 'last_login'))
    execute function idp_notice_user()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger users_changed on users`.execute(db);
  await sql`drop trigger users_deleted on users`.execute(db);
  await sql`create trigger users_changed after update or delete on users for each row execute function idp_notice_user()`.execute(db);
}
