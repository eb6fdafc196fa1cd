/** Table types for Kysely: the shape of every row as the database holds it. */
import type { ColumnType, Generated } from 'kysely';
import type { DeliveriesTable, DeliveryAttemptsTable, OutboxTable, WebhookEndpointsTable } from './event-tables.js';
import type { AuditEventsTable } from './audit-contract.js';
import type { PasswordSetupCodesTable, RecoveryCodesTable, RecoveryLinksTable, TotpCredentialsTable } from './mfa-tables.js';

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
}

export interface GroupsTable {
  uuid: Generated<string>;
  name: string;
  attributes: Json;
  created_at: Timestamp;
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

export interface InstanceStateTable {
  key: string;
  created_at: Timestamp;
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
  oidc_payloads: OidcPayloadsTable;
  signing_keys: SigningKeysTable;
  totp_credentials: TotpCredentialsTable;
  recovery_codes: RecoveryCodesTable;
  password_setup_codes: PasswordSetupCodesTable;
  recovery_links: RecoveryLinksTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  email_changes: EmailChangesTable;
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
