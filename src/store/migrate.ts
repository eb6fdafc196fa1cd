/** Runs the migrations in src/store/migrations/ (listed here so bundlers and Jest see static imports). */
import { Migrator, type Kysely, type Migration } from 'kysely';
import * as initial from './migrations/0001_initial.js';
import * as oidc from './migrations/0002_oidc.js';
import * as events from './migrations/0003_events.js';
import * as credentials from './migrations/0004_credentials.js';
import * as webhookEndpoints from './migrations/0005_webhook_endpoints.js';
import * as audit from './migrations/0006_audit.js';
import * as passkeys from './migrations/0007_passkeys.js';
import * as changeNotices from './migrations/0008_change_notices.js';
import * as quietConsumes from './migrations/0009_quiet_consumes.js';
import * as searchPendingList from './migrations/0010_search_pending_list.js';
import * as quietSignIns from './migrations/0011_quiet_sign_ins.js';
import * as challengesByPurpose from './migrations/0012_challenges_by_purpose.js';
import * as emailChanges from './migrations/0013_email_changes.js';
import * as readinessProbes from './migrations/0014_readiness_probes.js';
import * as signingAlgorithms from './migrations/0015_signing_algorithms.js';
import * as sourceLinks from './migrations/0016_source_links.js';
import * as scim from './migrations/0017_scim.js';
import * as invitations from './migrations/0018_invitations.js';
import * as auditActor from './migrations/0019_audit_actor.js';
import * as sessionDevices from './migrations/0020_session_devices.js';

/** Every migration this release knows, by name (read-only checks such as `idp doctor` use it too). */
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_oidc': oidc,
  '0003_events': events,
  '0004_credentials': credentials,
  '0005_webhook_endpoints': webhookEndpoints,
  '0006_audit': audit,
  '0007_passkeys': passkeys,
  '0008_change_notices': changeNotices,
  '0009_quiet_consumes': quietConsumes,
  '0010_search_pending_list': searchPendingList,
  '0011_quiet_sign_ins': quietSignIns,
  '0012_challenges_by_purpose': challengesByPurpose,
  '0013_email_changes': emailChanges,
  '0014_readiness_probes': readinessProbes,
  '0015_signing_algorithms': signingAlgorithms,
  '0016_source_links': sourceLinks,
  '0017_scim': scim,
  '0018_invitations': invitations,
  '0019_audit_actor': auditActor,
  '0020_session_devices': sessionDevices,
};

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
