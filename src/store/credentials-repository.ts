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

type Found = UserRow & { password_hash: string | null; totp: boolean; passkey: boolean };
/** Every column of the user is null when nobody has the address. */
type SignInRow = { comparable: string } & { [key in keyof Found]: Found[key] | null };

/**
 * Every password sign-in reads this twice (the e-mail step, the password step): prepared. It always answers one
 * row — the database's lower() of the typed address, with the user of that address or nulls — so the address's
 * comparable form comes from the one authority that compares it, in the same round trip.
 */
const signInRow = preparedLookup<{ email: string }, SignInRow>(
  (db: Kysely<Tables>, { email }) =>
    db
      .selectFrom(sql<{ comparable: string }>`(select ${lowered(email)} as comparable)`.as('typed'))
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('users')
            .select([...USER_COLUMNS, 'password_hash'])
            .select(secondFactorColumns)
            .where(sql`lower(email)`, '=', lowered(email))
            .as('found'),
        (join) => join.onTrue(),
      )
      .select('typed.comparable')
      .selectAll('found'),
  ['email'],
);

export function credentialsRepository(db: Kysely<Tables>): CredentialsRepository {
  return {
    async passwordHash(userId) {
      const row = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
      return row ? row.password_hash : undefined;
    },

    async lookUpAddress(email) {
      // Text PostgreSQL cannot hold finds nobody; as typed, it is still an address for the counters.
      const row = isStorableText(email) ? await signInRow(db, { email }) : undefined;
      if (!row) return { comparable: email };
      const { comparable, password_hash: passwordHash, totp, passkey, ...user } = row;
      if (user.id === null) return { comparable };
      return {
        comparable,
        record: { user: user as UserRow, passwordHash, secondFactors: { totp: totp === true, passkey: passkey === true } },
      };
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
