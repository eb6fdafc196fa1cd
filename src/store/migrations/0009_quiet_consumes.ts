/**
 * Change notices only where a cached copy could mislead (migration 0008 announced every update), and sessions
 * join the announced models (the replicas keep them too: every authorization reads its session). Two updates
 * of the token paths stay silent:
 *   - a consume (only consumed_at changes): whoever answers from a copy that predates it still has to win the
 *     consume in the database before anything is issued (src/oidc/engine-storage/unit-of-work.ts), and losing it revokes the grant, as
 *     the engine does when it sees a code or refresh token used twice;
 *   - a later expiry and nothing else (a session's sliding expiry, a grant saved again at each sign-in): a copy
 *     that predates it ends at the old expiry, earlier than the row, and is read again then.
 * Each notice is dear: PostgreSQL serialises the commits of every transaction that notifies, fsync included.
 * Deletes, and every other update of a live token, code or grant, are announced as before.
 */
import { sql, type Kysely } from 'kysely';

// The models the replicas keep (src/store/oidc-models.ts, `cached`): the ones whose changes are announced.
const CACHED = sql.raw(`('AccessToken', 'ClientCredentials', 'RefreshToken', 'AuthorizationCode', 'Grant', 'Session')`);
const CACHED_BEFORE = sql.raw(`('AccessToken', 'ClientCredentials', 'RefreshToken', 'AuthorizationCode', 'Grant')`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger oidc_payloads_changed on oidc_payloads`.execute(db);
  await sql`
    create trigger oidc_payloads_deleted after delete on oidc_payloads for each row
    when (old.model in ${CACHED} and (old.expires_at is null or old.expires_at > now()))
    execute function idp_notice_payload()`.execute(db);
  await sql`
    create trigger oidc_payloads_changed after update on oidc_payloads for each row
    when (old.model in ${CACHED} and (old.expires_at is null or old.expires_at > now())
      and ((old.payload - 'exp', old.grant_id, old.user_code, old.uid, old.account_id, old.client_id)
             is distinct from (new.payload - 'exp', new.grant_id, new.user_code, new.uid, new.account_id, new.client_id)
           or coalesce(new.expires_at, 'infinity') < coalesce(old.expires_at, 'infinity')
           or (new.consumed_at is null and old.consumed_at is not null)))
    execute function idp_notice_payload()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger oidc_payloads_changed on oidc_payloads`.execute(db);
  await sql`drop trigger oidc_payloads_deleted on oidc_payloads`.execute(db);
  await sql`
    create trigger oidc_payloads_changed after update or delete on oidc_payloads for each row
    when (old.model in ${CACHED_BEFORE} and (old.expires_at is null or old.expires_at > now()))
    execute function idp_notice_payload()`.execute(db);
}
