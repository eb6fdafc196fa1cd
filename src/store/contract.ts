/**
 * The storage contract, in one file: every repository and the guarantees it MUST keep (Dex's storage.go habit).
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

export type { ActorType, DeliveryKind, DeliveryStatus } from './tables.js';

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

// ---- The transactional outbox and the delivery log

/*
 * Storage contract of the transactional outbox and the delivery log (part of the Store contract).
 * Guarantees: an event appended in a transaction exists iff that transaction commits; a claimed event is
 * invisible to other claimers until its lease ends; one delivery per (event, app, kind), however often ensured.
 */
export type OutboxRow = Omit<Selectable<OutboxTable>, 'seq'> & { seq: string };
export type DeliveryRow = Selectable<DeliveriesTable>;
export type DeliveryAttemptRow = Selectable<DeliveryAttemptsTable>;
export type DisabledEndpointRow = Selectable<WebhookEndpointsTable>;

export interface NewEvent {
  id: string;
  type: string;
  /** The exact JSON bytes receivers get. */
  body: string;
  user_uuid?: string | null;
  /** Names of the user's groups when the event happened (who may receive it is decided from these). */
  user_groups?: string[];
  group_name?: string | null;
}

export interface AttemptOutcome {
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** The delivery's state after this attempt. */
  status: DeliveryStatus;
}

export interface NewDelivery {
  event_id: string;
  app: string;
  kind: DeliveryKind;
  target: string;
}

export interface EventsRepository {
  append(event: NewEvent): Promise<void>;
  /** Up to `limit` undispatched events in order, leased for `leaseMs` so concurrent relays skip them. */
  claimPending(limit: number, now: Date, leaseMs: number): Promise<OutboxRow[]>;
  markDispatched(ids: string[], now: Date): Promise<void>;
  /** Ends the lease of claimed events that were not dispatched, so the next round takes them at once. */
  releaseClaims(ids: string[]): Promise<void>;
  find(id: string): Promise<OutboxRow | undefined>;
  /** The delivery of this event to this app, created when missing. */
  ensureDelivery(delivery: NewDelivery): Promise<DeliveryRow>;
  /** ensureDelivery for many at once (a relay batch): the rows in the order asked, created where missing. */
  ensureDeliveries(deliveries: NewDelivery[]): Promise<DeliveryRow[]>;
  findDelivery(id: string): Promise<DeliveryRow | undefined>;
  /**
   * The deliveries and their events in one round trip (the workers' first read, for every job starting at the
   * same moment), by id; an unknown id is absent, an event that is gone undefined.
   */
  findDeliveriesWithEvents(ids: string[]): Promise<Map<string, { delivery: DeliveryRow; event: OutboxRow | undefined }>>;
  /** Pending deliveries untouched since `before` (their job may have been lost with Redis); touches them. */
  claimStalePending(before: Date, limit: number): Promise<DeliveryRow[]>;
  /**
   * Logs an attempt and moves the delivery to `outcome.status`, atomically. A delivered delivery stays delivered
   * (a job run twice may log a later failure); only reopenDelivery puts it back to pending.
   */
  recordAttempt(deliveryId: string, outcome: AttemptOutcome): Promise<void>;
  /** recordAttempt for several deliveries in one statement (attempts ending at the same moment). */
  recordAttempts(attempts: Array<{ deliveryId: string; outcome: AttemptOutcome }>): Promise<void>;
  /** Newest first. */
  listDeliveries(filter: { status?: DeliveryStatus; app?: string }, page: Page): Promise<Slice<DeliveryRow>>;
  attemptsOf(deliveryIds: string[]): Promise<Map<string, DeliveryAttemptRow[]>>;
  /** Puts a delivery back to pending for another round of attempts; undefined when unknown. */
  reopenDelivery(id: string): Promise<DeliveryRow | undefined>;
  /** Undoes a reopen whose enqueue failed. */
  restoreDelivery(id: string, status: DeliveryStatus): Promise<void>;
  /** Events not yet dispatched to the queue, and the creation time of the oldest (null when none). */
  backlog(): Promise<{ pending: number; oldest: Date | null }>;
  /** Stops webhooks to this app's receiver at `url`; a second disable keeps the first time and reason. */
  disableEndpoint(app: string, url: string, reason: string): Promise<void>;
  /** The app's disabled receiver, undefined while enabled. */
  disabledEndpoint(app: string): Promise<DisabledEndpointRow | undefined>;
  /** All disabled receivers, by app. */
  disabledEndpoints(): Promise<DisabledEndpointRow[]>;
  /** Enables the app's receiver again; false when it was not disabled. */
  enableEndpoint(app: string): Promise<boolean>;
}

// ---- Second factors and password setup

/*
 * Storage contract of second factors and password setup. Secrets arrive already encrypted or hashed: the
 * store never sees a TOTP secret, a code or a token in clear. Every consume is a compare-and-set in SQL.
 */
export interface TotpCredential {
  user_id: number;
  encrypted_secret: string;
  /** Null while enrolment waits for its first code. */
  confirmed_at: Date | null;
}

export interface MfaRepository {
  findTotp(userId: number): Promise<TotpCredential | undefined>;
  /** Stores a pending (unconfirmed) secret, replacing an earlier pending one. MUST NOT replace a confirmed one: false then. */
  savePendingTotp(userId: number, encryptedSecret: string): Promise<boolean>;
  /**
   * Records that the code of time step `step` was used: true only when `step` is later than the last used
   * step. Confirms a pending secret when `confirm` is set (and only then). Of concurrent callers with the
   * same step, exactly one gets true (replay protection).
   */
  useTotpStep(userId: number, step: number, confirm: boolean, now: Date): Promise<boolean>;
  /** Replaces the user's recovery codes with these hashes. */
  replaceRecoveryCodes(userId: number, codeHashes: string[]): Promise<void>;
  /** Marks one unused code used; of concurrent callers, exactly one gets true. */
  consumeRecoveryCode(userId: number, codeHash: string, now: Date): Promise<boolean>;
  /** Unused recovery codes left. */
  recoveryCodesLeft(userId: number): Promise<number>;
  /** Removes the TOTP secret and every recovery code; true when there was something to remove. */
  removeAll(userId: number): Promise<boolean>;
}

export interface SetupCodeRow {
  id: string;
  user_id: number;
  code_hash: string;
  attempts: number;
  expires_at: Date;
  used_at: Date | null;
}

export interface PasswordSetupRepository {
  /** Inserts or replaces the code of `id` (one per sign-in interaction), with a fresh attempt count. */
  saveCode(row: { id: string; user_id: number; code_hash: string; expires_at: Date }): Promise<void>;
  findCode(id: string): Promise<SetupCodeRow | undefined>;
  /**
   * Counts one attempt against a live code (unused, unexpired, fewer than `maxAttempts` attempts) and returns
   * the row as it was before; undefined when the code is no longer live. Atomic: never more than `maxAttempts`.
   */
  countAttempt(id: string, maxAttempts: number, now: Date): Promise<SetupCodeRow | undefined>;
  /** Marks the code used; exactly one concurrent caller gets true. */
  consumeCode(id: string, now: Date): Promise<boolean>;
  /** Saves a link (an administrator's recovery link unless `purpose` says invitation). */
  saveLink(row: { token_hash: string; user_id: number; expires_at: Date; purpose?: LinkPurpose }): Promise<void>;
  /** Marks the user's live invitations used, so only the one sent next works; returns how many. */
  withdrawInvitations(userId: number, now: Date): Promise<number>;
  /** The user id of a live (unused, unexpired) link. */
  findLink(tokenHash: string, now: Date): Promise<number | undefined>;
  /** Marks a live link used and returns its user id; exactly one concurrent caller gets it. */
  consumeLink(tokenHash: string, now: Date): Promise<number | undefined>;
  /** Deletes expired codes and links; returns how many. */
  sweepExpired(now: Date): Promise<number>;
}

// ---- Passkeys

/*
 * Storage contract of passkeys (WebAuthn credentials) and the challenges they answer. Ids and keys are
 * base64url text as the browser sends them. Every use is a compare-and-set in SQL.
 */
export interface PasskeyRow {
  /** The credential id (base64url). */
  id: string;
  user_id: number;
  /** The COSE public key (base64url). */
  public_key: string;
  sign_count: number;
  transports: string[];
  /** 'singleDevice' (bound to one authenticator) or 'multiDevice' (synced, e.g. by a password manager). */
  device_type: string;
  backed_up: boolean;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

export type NewPasskey = Omit<PasskeyRow, 'created_at' | 'last_used_at'>;

export interface PasskeysRepository {
  listForUser(userId: number): Promise<PasskeyRow[]>;
  find(id: string): Promise<PasskeyRow | undefined>;
  /** False when a passkey with this id exists already (of any user). */
  add(row: NewPasskey): Promise<boolean>;
  /**
   * Records a sign-in: the counter moves from `expectedCount` to `newCount`, and the backup flag follows the
   * authenticator. False when the stored counter is no longer `expectedCount` (a concurrent use: one wins).
   */
  recordUse(id: string, expectedCount: number, newCount: number, backedUp: boolean, now: Date): Promise<boolean>;
  /** False when the user has no passkey with this id. */
  rename(userId: number, id: string, name: string): Promise<boolean>;
  /** False when the user has no passkey with this id. */
  remove(userId: number, id: string): Promise<boolean>;
  /** Every passkey of the user; returns how many. */
  removeAll(userId: number): Promise<number>;
  /**
   * Stores a challenge and keeps only the `keep` newest of its purpose: older ones are deleted in the same
   * statement, so one sign-in never holds more than `keep` (plus any saved at the very same moment).
   */
  saveChallenge(challenge: string, purpose: string, expiresAt: Date, keep: number): Promise<void>;
  /** Spends a live challenge issued for `purpose`: of concurrent callers exactly one gets true. */
  consumeChallenge(challenge: string, purpose: string, now: Date): Promise<boolean>;
  /** Deletes expired challenges; returns how many. */
  sweepExpired(now: Date): Promise<number>;
}

// ---- E-mail address changes

/*
 * Storage contract of pending e-mail address changes: the new address waits, with a keyed hash of the code mailed
 * to it, until the code is typed. The store never sees the code in clear. Attempts are counted and the change
 * spent by compare-and-set in SQL.
 */
export interface EmailChangeRow {
  user_id: number;
  email: string;
  code_hash: string;
  attempts: number;
  expires_at: Date;
}

export interface EmailChangesRepository {
  /** Starts the user's pending change, replacing an earlier one (its code stops working), with no attempts yet. */
  save(row: { user_id: number; email: string; code_hash: string; expires_at: Date }): Promise<void>;
  /** The user's pending change while it is unexpired at `now`, whatever its attempts. */
  find(userId: number, now: Date): Promise<EmailChangeRow | undefined>;
  /**
   * Counts one attempt against a live change (unexpired, fewer than `maxAttempts` attempts) and returns the row as
   * it was before; undefined when there is none. Atomic: never more than `maxAttempts`.
   */
  countAttempt(userId: number, maxAttempts: number, now: Date): Promise<EmailChangeRow | undefined>;
  /**
   * Ends the live change whose code hash is `codeHash` and returns its address; of concurrent callers exactly one
   * gets it. A change replaced meanwhile (another hash) is not spent.
   */
  consume(userId: number, codeHash: string, now: Date): Promise<string | undefined>;
  /** Drops the user's pending change; true when there was one. */
  cancel(userId: number): Promise<boolean>;
  /** Deletes changes expired before `now`; returns how many. */
  sweepExpired(now: Date): Promise<number>;
}

// ---- Links to upstream identity providers

/*
 * Storage contract of source links (docs/federation.md): a person at an upstream identity provider (the source's
 * slug and the subject it names them by) linked to one user. Unique both ways: (source, subject) names one user,
 * and a user has at most one link per source. A link goes with its user.
 */
export interface SourceLinkRow {
  source: string;
  subject: string;
  user_id: number;
  created_at: Date;
  last_used_at: Date | null;
}

export interface SourceLinksRepository {
  /**
   * MUST refuse, even under concurrency, a (source, subject) linked already with UniqueViolation('subject'), and a
   * second link of the user to the same source with UniqueViolation('source').
   */
  insert(link: { source: string; subject: string; user_id: number }): Promise<SourceLinkRow>;
  /** The link of this upstream identity, if any. */
  find(source: string, subject: string): Promise<SourceLinkRow | undefined>;
  /** The user's links, by source. */
  listForUser(userId: number): Promise<SourceLinkRow[]>;
  /** Notes a sign-in through the link; false when it no longer exists. */
  touch(source: string, subject: string, now: Date): Promise<boolean>;
  /** Removes the user's link to `source`; true when there was one. */
  remove(userId: number, source: string): Promise<boolean>;
}

// ---- The audit trail

/*
 * Storage contract of the audit trail. Append-only: a row is never changed, only pruned after the retention
 * period. Details never hold secret values (the domain layer decides what goes in).
 */
export type AuditRow = Selectable<AuditEventsTable>;

export interface NewAuditEvent {
  action: string;
  actor_type: ActorType;
  actor?: string | null;
  user_uuid?: string | null;
  app?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditFilter {
  user?: string;
  app?: string;
  action?: string;
  /** Inclusive bounds on `at`. */
  since?: Date;
  until?: Date;
}

export interface AuditRepository {
  /** Appends one event (inside the caller's transaction when there is one). */
  record(event: NewAuditEvent): Promise<void>;
  /** Newest first, with the total matching. */
  list(filter: AuditFilter, page: Page): Promise<Slice<AuditRow>>;
  /** Deletes events older than `before`; returns how many. */
  prune(before: Date): Promise<number>;
}

// ---- Directory queries (SCIM: src/scim/)

export type Comparison = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/**
 * A filter over users or groups, in the store's own field names (the SCIM layer translates attribute paths to
 * these). Fields of users: uuid, username, email, name, external_id, is_active, created_at, updated_at,
 * `attributes.<key>` (the attribute as text), `group.uuid`, `group.name` (some group of the user). Of groups:
 * uuid, name, external_id, created_at, updated_at, `member.uuid`, `member.name` (some member).
 */
export type Condition =
  | { kind: 'constant'; value: boolean }
  | { kind: 'and' | 'or'; conditions: Condition[] }
  | { kind: 'not'; condition: Condition }
  /** The field has a value (text: a non-empty one; group/member fields: at least one membership). */
  | { kind: 'present'; field: string }
  /**
   * Text compares case-insensitively (as the database lowers) unless `caseExact`; booleans take eq/ne only,
   * timestamps no co/sw/ew; `ne` also matches an absent value. A related field matches when some relative does.
   */
  | { kind: 'compare'; field: string; op: Comparison; value: string | boolean | Date; caseExact?: boolean };

export interface MemberRef {
  id: number;
  uuid: string;
  name: string;
}
export interface GroupRef {
  uuid: string;
  name: string;
}

/**
 * Filtered lists for provisioning clients, in SQL: a condition on an indexed column (lower(username), lower(email),
 * lower(groups.name), external_id, uuid) is answered through its index; a page never reads the rows before it.
 * A field the condition names that is not listed at Condition throws (a programming error, never input).
 */
export interface DirectoryRepository {
  /** Users matching `where`, ordered by id; `total` counts every match. A page of limit 0 reads no rows. */
  findUsers(where: Condition, page: Page): Promise<Slice<UserRow>>;
  /** Groups matching `where`, ordered by name (case-insensitively), then uuid. */
  findGroups(where: Condition, page: Page): Promise<Slice<GroupRow>>;
  /** Members of each group, by user id (every group present; [] when it has none). */
  membersOf(groupUuids: string[]): Promise<Map<string, MemberRef[]>>;
  /** Groups of each user, by name case-insensitively (every user present). */
  groupsOf(userIds: number[]): Promise<Map<number, GroupRef[]>>;
  /** The users with these uuids, in no order; malformed or unknown uuids are skipped. */
  usersByUuid(uuids: string[]): Promise<UserRow[]>;
}

/** Outbound provisioning: the remote SCIM id of each local user or group (its uuid), per application. */
export interface ProvisioningRepository {
  remoteId(app: string, kind: 'User' | 'Group', localId: string): Promise<string | undefined>;
  /** Remembers the remote id, replacing an earlier one. */
  link(app: string, kind: 'User' | 'Group', localId: string, remoteId: string): Promise<void>;
  unlink(app: string, kind: 'User' | 'Group', localId: string): Promise<void>;
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
  /** Filtered lists and membership views for provisioning clients (SCIM). */
  directory: DirectoryRepository;
  /** Remote ids of outbound SCIM provisioning. */
  provisioning: ProvisioningRepository;
  /** Deletes expired rows (OIDC payloads, setup codes and recovery links, WebAuthn challenges, e-mail changes); returns how many, per kind. */
  sweepExpired(now: Date): Promise<{ oidcPayloads: number; passwordSetup: number; challenges: number; emailChanges: number }>;
  /** Runs `work` in one database transaction: all of its writes land, or none. Nested calls join the outer one. */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /**
   * Readiness through the contract (Dex's create-then-delete): resolves when a probe row is written, read back and
   * deleted, each committed — the database answers, takes writes (not a read-only standby or role) and reads what it
   * took; after a write it refused for a full disk, only once a write that needs room succeeds (write-room.ts).
   */
  probe(): Promise<void>;
}
