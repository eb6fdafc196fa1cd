/**
 * The compare-and-set that spends a single-use thing (STYLE.md §3: codes, links, tokens): stamps `column` with
 * `now` on the row that `pick` selects, only while `column` is still null. Of concurrent callers exactly one gets
 * true; a row already stamped, or none, gives false.
 */
import type { Kysely, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { Tables } from './tables.js';

type Stamped = 'api_tokens' | 'recovery_codes' | 'password_setup_codes';
type Query<T extends Stamped> = UpdateQueryBuilder<Tables, T, T, UpdateResult>;

export async function stampOnce<T extends Stamped>(
  db: Kysely<Tables>,
  table: T,
  column: 'used_at' | 'revoked_at',
  now: Date,
  pick: (query: Query<T>) => Query<T>,
): Promise<boolean> {
  // Kysely cannot type `set` over a union of tables; each caller's `pick` is typed against its own table.
  const update = (db as Kysely<any>).updateTable(table).set({ [column]: now } as never);
  const query = pick(update as unknown as Query<T>);
  const result = await query.where(column as never, 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
