/** Table types for Kysely: the shape of every row as the database holds it. */
import type { ColumnType, Generated } from 'kysely';
import type { SigningAlg } from '../settings/signing-algorithms.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json = ColumnType<Record<string, unknown>, string, string>;

export interface UsersTable {
  id: Generated<number>;
  uuid: Generated<string>;
  username: string;
  email: string;
  name: string;
  password_hash: string | null;
  email_verified: Generated<boolean>;
  is_active: Generated<boolean>;
  attributes: Json;
  last_login: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** A provisioning client's id for the user (SCIM externalId; migration 0017). */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface GroupsTable {
  uuid: Generated<string>;
  name: string;
  attributes: Json;
  created_at: Timestamp;
  /** A provisioning client's id for the group (SCIM externalId; migration 0017). */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The last change of the row itself: name, attributes, external_id (migration 0017); memberships do not count. */
  updated_at: Timestamp;
}

export interface MembershipsTable {
  group_uuid: string;
  user_id: number;
}

export interface ApiTokensTable {
  id: Generated<string>;
  name: string;
  token_hash: string;
  scopes: string[];
  created_at: Timestamp;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface ReadinessProbesTable {
  id: string;
  at: Generated<Date>;
}

export interface InstanceStateTable {
  key: string;
  created_at: Timestamp;
}

export interface SessionDevicesTable {
  session_id: string;
  user_uuid: string;
  user_agent: string;
  first_seen: Date;
  last_seen: Date;
}

export interface OidcPayloadsTable {
  model: string;
  id: string;
  payload: Json;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  account_id: string | null;
  client_id: string | null;
  expires_at: Date | null;
  consumed_at: Date | null;
}

export interface SigningKeysTable {
  kid: string;
  alg: SigningAlg;
  encrypted_jwk: string;
  state: 'active' | 'retired';
  created_at: Timestamp;
  retired_at: Date | null;
}

export interface Tables {
  outbox: OutboxTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  webhook_endpoints: WebhookEndpointsTable;
  audit_events: AuditEventsTable;
  users: UsersTable;
  groups: GroupsTable;
  memberships: MembershipsTable;
  api_tokens: ApiTokensTable;
  instance_state: InstanceStateTable;
  readiness_probes: ReadinessProbesTable;
  oidc_payloads: OidcPayloadsTable;
  session_devices: SessionDevicesTable;
  signing_keys: SigningKeysTable;
  totp_credentials: TotpCredentialsTable;
  recovery_codes: RecoveryCodesTable;
  password_setup_codes: PasswordSetupCodesTable;
  recovery_links: RecoveryLinksTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  email_changes: EmailChangesTable;
  source_links: SourceLinksTable;
  scim_links: ScimLinksTable;
}

/** A person at an upstream identity provider, linked to a user (migration 0016). */
export interface SourceLinksTable {
  source: string;
  subject: string;
  user_id: number;
  created_at: Generated<Date>;
  last_used_at: Date | null;
}

/** The remote SCIM resource of a local user or group, per application (migration 0017). */
export interface ScimLinksTable {
  app: string;
  kind: 'User' | 'Group';
  local_id: string;
  remote_id: string;
  created_at: Generated<Date>;
}

/** A pending e-mail address change (migration 0013). */
export interface EmailChangesTable {
  user_id: number;
  email: string;
  code_hash: string;
  attempts: Generated<number>;
  expires_at: Date;
  created_at: Generated<Date>;
}

export interface PasskeysTable {
  id: string;
  user_id: number;
  public_key: string;
  /** bigint: node-postgres returns it as text. */
  sign_count: ColumnType<string, string | number, string | number>;
  /** Comma-separated (usb,nfc,internal,hybrid…). */
  transports: string;
  device_type: string;
  backed_up: boolean;
  name: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  last_used_at: Date | null;
}

export interface WebauthnChallengesTable {
  challenge: string;
  purpose: string;
  expires_at: Date;
}

// The outbox and the delivery log (migration 0003) and the webhook endpoint state (0005).
export interface OutboxTable {
  id: string;
  seq: Generated<string>;
  type: string;
  body: string;
  user_uuid: string | null;
  user_groups: string[];
  group_name: string | null;
  created_at: Timestamp;
  claimed_until: Date | null;
  dispatched_at: Date | null;
}

export type DeliveryKind = 'webhook' | 'backchannel' | 'scim';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveriesTable {
  id: Generated<string>;
  event_id: string;
  app: string;
  kind: DeliveryKind;
  target: string;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  at: Timestamp;
}

/** A webhook receiver the sender stopped using (410 Gone); no row = enabled. */
export interface WebhookEndpointsTable {
  app: string;
  /** The URL that answered; the state holds only while the application's configured URL is the same. */
  url: string;
  disabled_at: Timestamp;
  reason: string;
}

// Second factors and password setup (migration 0004).
export interface TotpCredentialsTable {
  user_id: number;
  encrypted_secret: string;
  confirmed_at: Date | null;
  /** bigint: node-postgres returns it as text. */
  last_used_step: ColumnType<string, string | number | undefined, string | number>;
  created_at: Timestamp;
}

export interface RecoveryCodesTable {
  user_id: number;
  code_hash: string;
  used_at: Date | null;
}

export interface PasswordSetupCodesTable {
  id: string;
  user_id: number;
  code_hash: string;
  attempts: Generated<number>;
  expires_at: Date;
  used_at: Date | null;
}

export interface RecoveryLinksTable {
  token_hash: string;
  user_id: number;
  expires_at: Date;
  used_at: Date | null;
  /** Migration 0018: an administrator's recovery link, or an invitation (one live per user). */
  purpose: ColumnType<LinkPurpose, LinkPurpose | undefined, never>;
}

export type LinkPurpose = 'recovery' | 'invitation';

// The audit trail (migration 0006).
/** user: a person signed in; api_token: the provisioning API; client: an application (OAuth); system: no request. */
export type ActorType = 'user' | 'api_token' | 'client' | 'system' | 'anonymous';

export interface AuditEventsTable {
  id: Generated<string>;
  at: Timestamp;
  action: string;
  actor_type: ActorType;
  /** The API token's id, the user's uuid or the application's client_id; null for system and anonymous actors. */
  actor: string | null;
  /** The user the event is about, when there is one. */
  user_uuid: string | null;
  app: string | null;
  ip: string | null;
  user_agent: string | null;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
}
