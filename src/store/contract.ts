/**
 * The storage contract: every repository and the guarantees it MUST keep (Dex's storage.go habit), here and in
 * the contract-*.ts files it re-exports (events, credentials, audit and directory).
 * One implementation (Kysely) serves PGlite and PostgreSQL, and the replica cache (replica/) decorates it; the
 * conformance suite in test/store/ holds every backend to the guarantees written here.
 */
import type { Selectable } from 'kysely';
import type { SigningAlg } from '../settings/signing-algorithms.js';
import type {
  ActorType,
  ApiTokensTable,
  AuditEventsTable,
  DeliveriesTable,
  DeliveryAttemptsTable,
  DeliveryKind,
  DeliveryStatus,
  GroupsTable,
  LinkPurpose,
  OidcPayloadsTable,
  OutboxTable,
  UsersTable,
  WebhookEndpointsTable,
} from './tables.js';
import type { EventsRepository } from './contract-events.js';
import type {
  EmailChangesRepository,
  MfaRepository,
  PasskeysRepository,
  PasswordSetupRepository,
  SessionDevicesRepository,
  SourceLinksRepository,
} from './contract-credentials.js';
import type { AuditRepository, DirectoryRepository, NewAuditEvent, ProvisioningRepository } from './contract-directory.js';

export type { ActorType, DeliveryKind, DeliveryStatus } from './tables.js';
export type * from './contract-events.js';
export type * from './contract-credentials.js';
export type * from './contract-directory.js';

export type UserRow = Omit<Selectable<UsersTable>, 'password_hash'>;
export type GroupRow = Selectable<GroupsTable>;
export type ApiTokenRow = Omit<Selectable<ApiTokensTable>, 'token_hash'>;

/** A unique constraint refused a write. `field` names the API field it protects. */
export class UniqueViolation extends Error {
  override name = 'UniqueViolation';
  constructor(readonly field: string) {
    super(`${field} is already taken`);
  }
}

export interface Page {
  offset: number;
  limit: number;
}
export interface Slice<T> {
  total: number;
  rows: T[];
}

export interface NewUser {
  username: string;
  email: string;
  name: string;
  is_active?: boolean;
  email_verified?: boolean;
  attributes?: Record<string, unknown>;
  /** A provisioning client's id for the user (SCIM externalId). */
  external_id?: string | null;
}
export type UserChanges = Partial<
  Pick<UserRow, 'username' | 'email' | 'name' | 'is_active' | 'attributes' | 'email_verified' | 'external_id'>
>;

export interface UserFilter {
  /** Members of any of these groups. */
  groups?: string[];
  /** Exact e-mail, case-insensitive. */
  email?: string;
  /** Case-insensitive substring of name or e-mail (trigram-indexed). */
  search?: string;
  is_active?: boolean;
}

export interface UsersRepository {
  /** MUST refuse a username or e-mail already present, case-insensitively, with UniqueViolation, even under concurrency. */
  insert(user: NewUser): Promise<UserRow>;
  findById(id: number): Promise<UserRow | undefined>;
  /** The user with this uuid (the OIDC subject); undefined for an unknown or malformed uuid. */
  findByUuid(uuid: string): Promise<UserRow | undefined>;
  /**
   * findByUuid with the names of the user's groups, lower-cased, in one round trip: the engine's hot paths check
   * the access group for every token (and a replica caches the answer: src/store/replica/replica-store.ts).
   */
  findByUuidWithGroups(uuid: string): Promise<{ user: UserRow; groups: string[] } | undefined>;
  /** The user with exactly this e-mail, case-insensitively (e-mails are unique that way). */
  findByEmail(email: string): Promise<UserRow | undefined>;
  /** Like findById, and locks the row until the transaction ends: concurrent changes to one user queue up. */
  lockById(id: number): Promise<UserRow | undefined>;
  /** Ordered by id, so pages are stable. */
  list(filter: UserFilter, page: Page): Promise<Slice<UserRow>>;
  /** Returns undefined for an unknown id. Same uniqueness rule as insert. Bumps updated_at. */
  update(id: number, changes: UserChanges): Promise<UserRow | undefined>;
  delete(id: number): Promise<boolean>;
  /** Group uuids of each user (users without groups map to []). */
  groupsOf(ids: number[]): Promise<Map<number, string[]>>;
}

export interface NewGroup {
  name: string;
  attributes?: Record<string, unknown>;
  /** A provisioning client's id for the group (SCIM externalId). */
  external_id?: string | null;
}

export interface GroupFilter {
  search?: string;
}

export interface GroupsRepository {
  /** MUST refuse a name already present, case-insensitively, with UniqueViolation('name'). */
  insert(group: NewGroup): Promise<GroupRow>;
  findByUuid(uuid: string): Promise<GroupRow | undefined>;
  /** The group with exactly this name, case-insensitively (names are unique that way). */
  findByName(name: string): Promise<GroupRow | undefined>;
  /**
   * `name` as the database compares group names (its lower(), by its locale): what findByUuidWithGroups lists and
   * the unique index holds. Lower-casing elsewhere (JavaScript's differs for İ, Σ, …) would match other groups.
   */
  comparableName(name: string): Promise<string>;
  /** Like findByUuid, and locks the row until the transaction ends: concurrent changes to one group queue up. */
  lockByUuid(uuid: string): Promise<GroupRow | undefined>;
  /** The subset of `uuids` that names no group. */
  missing(uuids: string[]): Promise<string[]>;
  /** Ordered by name, then uuid. */
  list(filter: GroupFilter, page: Page): Promise<Slice<GroupRow>>;
  /** Bumps updated_at when something is written. */
  update(uuid: string, changes: Partial<NewGroup>): Promise<GroupRow | undefined>;
  delete(uuid: string): Promise<boolean>;
  /** True when the membership is new; adding twice is harmless. */
  addMember(groupUuid: string, userId: number): Promise<boolean>;
  /** True when a membership was removed. */
  removeMember(groupUuid: string, userId: number): Promise<boolean>;
  /** Member user ids of each group, ascending. */
  membersOf(uuids: string[]): Promise<Map<string, number[]>>;
}

export interface ApiTokensRepository {
  insert(token: { name: string; token_hash: string; scopes: string[]; expires_at?: Date | null }): Promise<ApiTokenRow>;
  /** A token that exists, is not revoked and has not expired at `now`. */
  findUsable(tokenHash: string, now: Date): Promise<ApiTokenRow | undefined>;
  list(): Promise<ApiTokenRow[]>;
  /** True when a usable token was revoked by this call. */
  revoke(id: string, now: Date): Promise<boolean>;
  touch(id: string, now: Date): Promise<void>;
}

/** One oidc-provider payload (code, token, session, grant, interaction…) as the adapter stores it. */
export type OidcPayload = Omit<Selectable<OidcPayloadsTable>, 'payload'> & { payload: Record<string, unknown> };

export interface Redeemed {
  won: boolean;
  inserted: Array<{ model: string; id: string }>;
}

export interface OidcPayloadsRepository {
  /** Inserts or replaces the payload of (model, id); the indexed columns follow the payload. */
  upsert(row: Omit<OidcPayload, 'consumed_at'>): Promise<void>;
  /**
   * The row as the database holds it at `now`. Rows that expired before `now` are invisible (the engine must never
   * see them, even before a sweep); for a `toldExpired` model (oidc-models.ts) that is a while after its payload's
   * expiry, which the engine checks itself. MUST reflect every committed change, a consume made by another replica included.
   */
  find(model: string, id: string, now: Date): Promise<OidcPayload | undefined>;
  /**
   * `find`, for a caller that redeems what it reads: it consumes the row next (`redeem` or `consume`), and the consume
   * decides in the database. A replica MAY answer from a copy made before a consume at another replica (consumes are
   * not announced: migration 0009): `consumed_at` may then be null where the row is consumed. Every other change is
   * reflected as by `find`.
   */
  findToRedeem(model: string, id: string, now: Date): Promise<OidcPayload | undefined>;
  findByUid(model: string, uid: string, now: Date): Promise<OidcPayload | undefined>;
  findByUserCode(model: string, userCode: string, now: Date): Promise<OidcPayload | undefined>;
  /**
   * Marks the row consumed. MUST be atomic: of concurrent callers, exactly one gets true, so a single-use
   * credential (code, rotated refresh token) is never redeemed twice.
   */
  consume(model: string, id: string, now: Date): Promise<boolean>;
  /**
   * A token or authorization request's writes in one statement (one commit): consume `consume` as `consume()`
   * does, and only when that wins, upsert `rows`. `won` is false, nothing written, when the consume lost;
   * `inserted` names the rows that did not exist before.
   */
  redeem(consume: { model: string; id: string } | undefined, rows: Array<Omit<OidcPayload, 'consumed_at'>>, now: Date): Promise<Redeemed>;
  destroy(model: string, id: string): Promise<void>;
  /**
   * Deletes the grant's codes and tokens (the grant-bound models of oidc-models.ts), as the engine's own memory
   * adapter does. Sessions and interactions
   * that mention the grant MUST stay: a user switching accounts mid-sign-in still has their interaction.
   */
  revokeByGrantId(grantId: string): Promise<void>;
  /**
   * Deletes the account's grants, codes and tokens with these clients (sessions stay: the user remains signed
   * in elsewhere). Returns the clients that held a live grant, i.e. who must hear a backchannel logout.
   */
  revokeClientGrants(accountId: string, clientIds: string[], now: Date): Promise<string[]>;
  /** Client ids the account holds live grants with (who must hear a backchannel logout when it is signed out everywhere). */
  grantedClients(accountId: string, now: Date): Promise<string[]>;
  /**
   * The account's live rows of `model` (its sessions, with the sid each client saw; its grants), by id. Read
   * in the transaction that ends them, to tell whom to notify.
   */
  findByAccount(model: string, accountId: string, now: Date): Promise<OidcPayload[]>;
  /**
   * Deletes every session, grant, code and token of the account; returns how many rows. With `keepSessionUid`
   * that one session stays (a password changed on the account page keeps the browser that changed it).
   */
  destroyByAccount(accountId: string, keepSessionUid?: string): Promise<number>;
  /** Deletes rows whose expires_at is before `now`; returns how many. */
  sweepExpired(now: Date): Promise<number>;
}

/** A signing key as stored: the private JWK is encrypted by the domain layer, never stored in clear. */
export interface SigningKeyRow {
  kid: string;
  alg: SigningAlg;
  encrypted_jwk: string;
  state: 'active' | 'retired';
  created_at: Date;
  retired_at: Date | null;
}

export type NewSigningKey = Pick<SigningKeyRow, 'kid' | 'alg' | 'encrypted_jwk'>;

/** Keys by algorithm (src/settings/signing-algorithms.ts): each algorithm has at most one active key. */
export interface SigningKeysRepository {
  /**
   * Active keys first, then retired ones; each part in the order of SIGNING_ALGS (RS256 first), newest first. The
   * engine signs with the first key of an algorithm, so an algorithm's active key always comes before its retired ones.
   */
  list(): Promise<SigningKeyRow[]>;
  /** Inserts every key as its algorithm's active key and retires the previous ones, atomically (one transaction). */
  activate(keys: NewSigningKey[], now: Date): Promise<void>;
  /** Inserts `key` unless its algorithm has an active key; true when this call created it (replicas starting together). */
  insertFirst(key: NewSigningKey): Promise<boolean>;
}

/** The second factors a user has set up: a confirmed TOTP secret, at least one passkey. */
export interface SecondFactors {
  totp: boolean;
  passkey: boolean;
}

/** What the sign-in pages need of the person behind an e-mail address, read at once. */
export interface SignInRecord {
  user: UserRow;
  /** The bcrypt hash; null when the user has none. */
  passwordHash: string | null;
  secondFactors: SecondFactors;
}

/** One lookup of a typed e-mail address: what the database compared, and whom it found. */
export interface AddressLookup {
  /**
   * The typed address as the lookup compared it (the database's lower() of it): two spellings with the same
   * form find the same account, or none. The rate limits key an address without an account by it.
   */
  comparable: string;
  /** Undefined when no user has the address. */
  record?: SignInRecord;
}

/** The secrets side of a user: kept apart from UserRow so password hashes never travel with user views. */
export interface CredentialsRepository {
  /** The bcrypt hash, null when the user has none, undefined for an unknown user. */
  passwordHash(userId: number): Promise<string | null | undefined>;
  /**
   * The user with this e-mail (case-insensitively, by the database's lower()), their hash and second factors, and
   * the compared form of the address, in one read — an unknown address costs the same statement.
   */
  lookUpAddress(email: string): Promise<AddressLookup>;
  /** The user's second factors (none for an unknown user), in one read. */
  secondFactors(userId: number): Promise<SecondFactors>;
  /** False for an unknown user. */
  setPasswordHash(userId: number, hash: string): Promise<boolean>;
  /** A completed sign-in: `last_login` and its audit event, written together in one statement. */
  recordLogin(userId: number, at: Date, event: NewAuditEvent): Promise<void>;
}

export interface InstanceState {
  /** True for exactly one caller per key, ever (first-start work such as the bootstrap token). */
  claimOnce(key: string): Promise<boolean>;
}

// ---- The store

export interface Store {
  audit: AuditRepository;
  users: UsersRepository;
  groups: GroupsRepository;
  apiTokens: ApiTokensRepository;
  state: InstanceState;
  oidcPayloads: OidcPayloadsRepository;
  signingKeys: SigningKeysRepository;
  credentials: CredentialsRepository;
  /** Transactional outbox and delivery log. */
  events: EventsRepository;
  /** TOTP secrets and recovery codes. */
  mfa: MfaRepository;
  /** E-mailed setup codes and recovery links. */
  passwordSetup: PasswordSetupRepository;
  /** Passkeys and their WebAuthn challenges. */
  passkeys: PasskeysRepository;
  /** E-mail address changes waiting for their mailed code. */
  emailChanges: EmailChangesRepository;
  /** Links between upstream identities and users. */
  sourceLinks: SourceLinksRepository;
  /** The browsers of the engine's sessions: user agent, first and last seen (the account page). */
  sessionDevices: SessionDevicesRepository;
  /** Filtered lists and membership views for provisioning clients (SCIM). */
  directory: DirectoryRepository;
  /** Remote ids of outbound SCIM provisioning. */
  provisioning: ProvisioningRepository;
  /**
   * Deletes expired rows (OIDC payloads, setup codes and recovery links, WebAuthn challenges, e-mail changes, the
   * browsers of sessions gone for a minute); returns how many, per kind.
   */
  sweepExpired(
    now: Date,
  ): Promise<{ oidcPayloads: number; passwordSetup: number; challenges: number; emailChanges: number; sessionDevices: number }>;
  /** Runs `work` in one database transaction: all of its writes land, or none. Nested calls join the outer one. */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /**
   * Readiness through the contract (Dex's create-then-delete): resolves when a probe row is written, read back and
   * deleted, each committed — the database answers, takes writes (not a read-only standby or role) and reads what it
   * took; after a write it refused for a full disk, only once a write that needs room succeeds (write-room.ts).
   */
  probe(): Promise<void>;
}
