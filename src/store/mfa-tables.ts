/** Row types of the second-factor and password-setup tables (migration 0004). */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

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
}
