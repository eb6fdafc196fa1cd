/**
 * Change notices for the replicas' read caches (src/store/read-cache.ts): the database itself announces, in the
 * transaction that makes it, every change a cached row could go stale by, on the channel `idp_changes`. Triggers
 * catch every writer — the engine, the API, the CLI, another replica — with no code path to forget.
 *   p:<model>:<id>  an engine row (token, code, grant) was updated — consumed, too — or deleted before it expired
 *   u:<uuid>        a user changed, or joined or left a group
 *   *               a group was renamed or deleted: forget every user
 * Inserts need no notice: nothing can be cached under a key that did not exist.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function idp_notice_payload() returns trigger language plpgsql as $$
    begin
      perform pg_notify('idp_changes', 'p:' || old.model || ':' || old.id);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger oidc_payloads_changed after update or delete on oidc_payloads for each row
    when (old.model in ('AccessToken', 'ClientCredentials', 'RefreshToken', 'AuthorizationCode', 'Grant')
      and (old.expires_at is null or old.expires_at > now()))
    execute function idp_notice_payload()`.execute(db);

  await sql`
    create function idp_notice_user() returns trigger language plpgsql as $$
    begin
      perform pg_notify('idp_changes', 'u:' || old.uuid);
      return null;
    end $$`.execute(db);
  await sql`create trigger users_changed after update or delete on users for each row execute function idp_notice_user()`.execute(db);

  await sql`
    create function idp_notice_membership() returns trigger language plpgsql as $$
    declare
      changed memberships;
    begin
      changed := case when tg_op = 'DELETE' then old else new end;
      perform pg_notify('idp_changes', 'u:' || uuid) from users where id = changed.user_id;
      return null;
    end $$`.execute(db);
  await sql`create trigger memberships_changed after insert or update or delete on memberships for each row execute function idp_notice_membership()`.execute(
    db,
  );

  await sql`
    create function idp_notice_group() returns trigger language plpgsql as $$
    begin
      perform pg_notify('idp_changes', '*');
      return null;
    end $$`.execute(db);
  await sql`
    create trigger groups_changed after update of name or delete on groups for each row
    execute function idp_notice_group()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists groups_changed on groups`.execute(db);
  await sql`drop trigger if exists memberships_changed on memberships`.execute(db);
  await sql`drop trigger if exists users_changed on users`.execute(db);
  await sql`drop trigger if exists oidc_payloads_changed on oidc_payloads`.execute(db);
  for (const name of ['idp_notice_group', 'idp_notice_membership', 'idp_notice_user', 'idp_notice_payload']) {
    await sql`drop function if exists ${sql.raw(name)}()`.execute(db);
  }
}
