/**
 * The database's change notices (migration 0008), which a replica's read cache follows (replica/index.ts).
 * PostgreSQL: a dedicated connection LISTENs; it is checked every two seconds, and while it is down (a restart, a
 * network cut, a silent socket) the listener hears `down`, so nothing is served that a missed notice could have
 * changed; `up` once it listens again. PGlite lives in this process: its notices arrive directly.
 *
 * Notices travel asynchronously: a replica could answer from memory a moment before the notice of a change that
 * has already committed elsewhere arrives. `fence()` closes that moment. It resolves once a round trip on the
 * listening connection, sent after the call, has come back; PostgreSQL hands a listening session every notice
 * committed before it reads a query, ahead of that query's answer. So after the fence the cache knows of every
 * change committed before the request asked. Callers waiting at the same time share one round trip.
 */
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';

export const CHANGES_CHANNEL = 'idp_changes';

/** What the triggers (migrations 0008, 0009) say: an engine row changed, a user changed, every user (a group renamed or deleted). */
export const payloadNotice = (model: string, id: string) => `p:${model}:${id}`;
export const userNotice = (uuid: string) => `u:${uuid}`;
export const EVERY_USER = '*';
const HEARTBEAT_MS = 2000;
const RECONNECT_MS = 1000;
/** How the listening connection shows in pg_stat_activity. */
export const LISTENER_NAME = 'idp change notices';

export interface NoticeListener {
  notice(payload: string): void;
  /** Listening: every change from now on will be announced. */
  up(): void;
  /** Not listening any more; notices may be missed until the next up(). */
  down(error?: unknown): void;
}

export interface Listening {
  /**
   * Resolves when every notice committed before `since` (performance.now(); default: the call) has been handed
   * to the listener; rejects when not listening.
   */
  fence(since?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Listens on a dedicated PostgreSQL connection, reconnecting until stopped. */
export function listenPostgres(url: string, listener: NoticeListener): Listening {
  let stopped = false;
  let client: pg.Client | undefined;
  let listening: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  // The fence's rounds: the one out (or about to leave), callers waiting for the next, and when the last one back left.
  let inFlight: { sentAt: number; done: Promise<void> } | undefined;
  let queued: Promise<void> | undefined;
  let backSentAt = -Infinity;

  async function connect() {
    if (stopped) return;
    const current = new pg.Client({
      connectionString: url,
      application_name: LISTENER_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 5000,
      query_timeout: HEARTBEAT_MS,
    });
    client = current;
    let lost = false;
    const lose = (error?: unknown) => {
      if (lost) return;
      lost = true;
      listening = undefined;
      backSentAt = -Infinity;
      clearInterval(heartbeat);
      current.end().catch(() => {});
      if (stopped) return;
      listener.down(error);
      retry = setTimeout(connect, RECONNECT_MS);
      retry.unref();
    };
    current.on('error', lose);
    current.on('end', () => lose());
    current.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) listener.notice(message.payload ?? '');
    });
    try {
      await current.connect();
      await current.query(`listen ${CHANGES_CHANNEL}`);
    } catch (error) {
      return lose(error);
    }
    if (stopped || lost) return;
    listening = current;
    listener.up();
    heartbeat = setInterval(() => current.query('select 1').catch(lose), HEARTBEAT_MS);
    heartbeat.unref();
  }

  function startRound(connection: pg.Client): Promise<void> {
    const round = { sentAt: Infinity, done: Promise.resolve() }; // not sent yet: any caller may join
    round.done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        round.sentAt = performance.now();
        return connection.query('select 1');
      })
      .then(() => {
        backSentAt = Math.max(backSentAt, round.sentAt);
      })
      .finally(() => {
        if (inFlight === round) inFlight = undefined;
      });
    inFlight = round;
    return round.done;
  }

  /**
   * Resolves once a round trip on the listening connection sent at or after `since` (performance.now(), default:
   * now) has come back. A round already back or out that qualifies is shared; otherwise callers share the next.
   * A round leaves at the end of the event loop's turn, so every request reaching a cache hit in that turn joins it.
   */
  function fence(since = performance.now()): Promise<void> {
    const connection = listening;
    if (!connection) return Promise.reject(new Error('not listening for change notices'));
    if (backSentAt >= since) return Promise.resolve();
    if (!inFlight) return startRound(connection);
    if (inFlight.sentAt >= since) return inFlight.done;
    queued ??= inFlight.done
      .catch(() => {})
      .then(() => {
        queued = undefined;
        return inFlight?.done ?? fence();
      });
    return queued;
  }

  void connect();
  return {
    fence,
    async stop() {
      stopped = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      await client?.end().catch(() => {});
    },
  };
}

/** PGlite is one in-process session: its notices cannot be lost, and arrive before the change's own call returns. */
export function listenPglite(lite: PGlite, listener: NoticeListener): Listening {
  const unlisten = lite
    .listen(CHANGES_CHANNEL, (payload) => listener.notice(payload))
    .then((stop) => {
      listener.up();
      return stop;
    });
  return {
    fence: async () => {},
    async stop() {
      await (await unlisten)().catch(() => {});
    },
  };
}
