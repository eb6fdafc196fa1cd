/**
 * The storage contract of credentials besides the password: second factors, password setup, passkeys, e-mail
 * changes and links to upstream providers. Part of contract.ts, which re-exports it.
 */
import type { LinkPurpose } from './tables.js';

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

/** A signed-in browser as the account page shows it (migration 0020), by the engine's session id. */
export interface SessionDeviceRow {
  session_id: string;
  user_uuid: string;
  user_agent: string;
  first_seen: Date;
  last_seen: Date;
}

export interface SessionDevicesRepository {
  /** Notes the session seen now with this user agent: made on first sight (first_seen), else last_seen moves on. */
  seen(sessionId: string, userUuid: string, userAgent: string, now: Date): Promise<void>;
  /** The rows of these sessions (those that have one). */
  list(sessionIds: string[]): Promise<SessionDeviceRow[]>;
  /** Deletes the rows whose session is gone and that were not seen since `before`; returns how many. */
  sweep(before: Date): Promise<number>;
}
