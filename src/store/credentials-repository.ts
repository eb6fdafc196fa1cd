/** Password hashes and sign-in bookkeeping, kept out of the users repository's row shape on purpose. */
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { CredentialsRepository, UserRow } from './contract.js';
import type { Tables } from './tables.js';
import { USER_COLUMNS } from './users-repository.js';
import { auditValues } from './audit-repository.js';
import { lowered } from './unique.js';
import { isStorableText } from './storable-text.js';
import { preparedLookup } from './prepared-statements.js';

/** Whether the user of the outer row has a confirmed TOTP secret, and a passkey. */
const secondFactorColumns = (eb: ExpressionBuilder<Tables, 'users'>) => [
  eb
    .exists(
      eb
        .selectFrom('totp_credentials')
        .select(sql`1`.as('one'))
        .whereRef('totp_credentials.user_id', '=', 'users.id')
        .where('totp_credentials.confirmed_at', 'is not', null),
    )
    .as('totp'),
  eb
    .exists(
      eb
        .selectFrom('passkeys')
        .select(sql`1`.as('one'))
        .whereRef('passkeys.user_id', '=', 'users.id'),
    )
    .as('passkey'),
];

type SignInRow = UserRow & { password_hash: string | null; totp: boolean; passkey: boolean };

/** Every password sign-in reads this twice (the e-mail step, the password step): prepared. */
const signInRow = preparedLookup<{ email: string }, SignInRow>(
  (db: Kysely<Tables>, { email }) =>
    db
      .selectFrom('users')
      .select([...USER_COLUMNS, 'password_hash'])
      .select(secondFactorColumns)
      .where(sql`lower(email)`, '=', lowered(email)),
  ['email'],
);

export function credentialsRepository(db: Kysely<Tables>): CredentialsRepository {
  return {
    async passwordHash(userId) {
      const row = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
      return row ? row.password_hash : undefined;
    },

    async signInRecord(email) {
      const row = isStorableText(email) ? await signInRow(db, { email }) : undefined;
      if (!row) return undefined;
      const { password_hash: passwordHash, totp, passkey, ...user } = row;
      return { user, passwordHash, secondFactors: { totp, passkey } };
    },

    async secondFactors(userId) {
      const row = await db.selectFrom('users').select(secondFactorColumns).where('id', '=', userId).executeTakeFirst();
      return { totp: Boolean(row?.totp), passkey: Boolean(row?.passkey) };
    },

    async setPasswordHash(userId, hash) {
      const result = await db.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    // One statement, so one round trip: the sign-in's write is atomic without a transaction's begin and commit.
    async recordLogin(userId, at, event) {
      await db
        .with('login', (qb) => qb.updateTable('users').set({ last_login: at }).where('id', '=', userId))
        .insertInto('audit_events')
        .values(auditValues(event))
        .execute();
    },
  };
}
