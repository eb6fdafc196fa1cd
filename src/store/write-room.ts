/**
 * Room to write. A database can answer reads and still refuse every write that needs a new page: its disk is full
 * (SQLSTATE 53100, "could not extend file"). The pool boundary reports that as `Unavailable`, as it does a database
 * that does not answer (report-unavailable.ts), and marks the database's room as refused; readiness (the store's
 * ping) then fails until a write succeeds again. Only while a refusal stands does the ping write anything: while
 * writes succeed it costs nothing, and no table is kept for it.
 */
import { sql, type Kysely } from 'kysely';

/** SQLSTATE 53100 (disk_full): the database answers, but cannot extend a file. */
export const isOutOfRoom = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === '53100';

/** One per database, shared by its pool (which marks refusals) and its store (whose ping checks them). */
export interface WriteRoom {
  refused: boolean;
}

const rooms = new WeakMap<Kysely<any>, WriteRoom>();

/** Names the room of the database behind `db` (openDatabase does, for the store's ping). */
export function trackRoom(db: Kysely<any>, room: WriteRoom): void {
  rooms.set(db, room);
}

/**
 * Resolves when the database behind `db` has room to write: at once when none of its writes was refused; else
 * after a write that needs a new file — a temporary table written to, in a transaction rolled back, so nothing is
 * left behind — which ends the refusal. Rejects (Unavailable, from the pool) while the disk is still full.
 */
export async function checkRoom(db: Kysely<any>): Promise<void> {
  const room = rooms.get(db);
  if (!room?.refused) return;
  const trx = await db.startTransaction().execute();
  try {
    await sql`create temporary table write_probe (filler text) on commit drop`.execute(trx);
    await sql`insert into write_probe values ('room to write')`.execute(trx);
  } finally {
    await trx.rollback().execute();
  }
  room.refused = false;
}
