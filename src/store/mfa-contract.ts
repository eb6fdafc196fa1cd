/**
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
  saveLink(row: { token_hash: string; user_id: number; expires_at: Date }): Promise<void>;
  /** The user id of a live (unused, unexpired) link. */
  findLink(tokenHash: string, now: Date): Promise<number | undefined>;
  /** Marks a live link used and returns its user id; exactly one concurrent caller gets it. */
  consumeLink(tokenHash: string, now: Date): Promise<number | undefined>;
  /** Deletes expired codes and links; returns how many. */
  sweepExpired(now: Date): Promise<number>;
}
