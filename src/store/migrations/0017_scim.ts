/**
 * SCIM provisioning (src/scim/): the `externalId` a provisioning client (Entra ID, Okta) gives a user or a group,
 * looked up by equality on every sync (`filter=externalId eq "…"`), hence indexed; and when a group's row last
 * changed (SCIM's meta.lastModified: a rename). Existing groups start at their creation time. And for outbound
 * provisioning (src/domain/provisioning.ts): which remote resource stands for each local user or group, per application.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column external_id text`.execute(db);
  await sql`create index users_external_id on users (external_id) where external_id is not null`.execute(db);
  await sql`alter table groups add column external_id text`.execute(db);
  await sql`create index groups_external_id on groups (external_id) where external_id is not null`.execute(db);
  await sql`alter table groups add column updated_at timestamptz`.execute(db);
  await sql`update groups set updated_at = created_at`.execute(db);
  await sql`alter table groups alter column updated_at set default now(), alter column updated_at set not null`.execute(db);
  await sql`
    create table scim_links (
      app text not null,
      kind text not null check (kind in ('User', 'Group')),
      local_id uuid not null,
      remote_id text not null,
      created_at timestamptz not null default now(),
      primary key (app, kind, local_id)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table scim_links`.execute(db);
  await sql`alter table groups drop column updated_at`.execute(db);
  await sql`drop index groups_external_id`.execute(db);
  await sql`alter table groups drop column external_id`.execute(db);
  await sql`drop index users_external_id`.execute(db);
  await sql`alter table users drop column external_id`.execute(db);
}
