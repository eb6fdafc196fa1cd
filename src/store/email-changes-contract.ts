/**
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
