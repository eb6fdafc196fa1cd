/** API tokens as stored: hashed secrets, scopes, expiry and revocation, last use at most once a minute. */
import { sql, type Kysely } from 'kysely';
import type { ApiTokensRepository } from './contract.js';
import type { Tables } from './tables.js';
import { stampOnce } from './stamp-once.js';

const columns = ['id', 'name', 'scopes', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'] as const;

export function apiTokensRepository(db: Kysely<Tables>): ApiTokensRepository {
  return {
    insert: (token) =>
      db
        .insertInto('api_tokens')
        .values({
          name: token.name,
          token_hash: token.token_hash,
          scopes: token.scopes,
          expires_at: token.expires_at ?? null,
          last_used_at: null,
          revoked_at: null,
        })
        .returning(columns)
        .executeTakeFirstOrThrow(),

    findUsable: (tokenHash, now) =>
      db
        .selectFrom('api_tokens')
        .select(columns)
        .where('token_hash', '=', tokenHash)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .executeTakeFirst(),

    list: () => db.selectFrom('api_tokens').select(columns).orderBy('created_at').orderBy('id').execute(),

    revoke: (id, now) =>
      stampOnce(db, 'api_tokens', 'revoked_at', now, (query) =>
        query.where('id', '=', id).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])),
      ),

    async touch(id, now) {
      // At most one write a minute per token: last_used_at is for operators, not an audit log.
      await db
        .updateTable('api_tokens')
        .set({ last_used_at: now })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`${now}::timestamptz - interval '1 minute'`)]),
        )
        .execute();
    },
  };
}
