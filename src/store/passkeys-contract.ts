/**
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
