/**
 * Logout (spec §2.5, §6.2): ending sessions revokes grants and writes an outbox event per ended session naming
 * every client that must hear a backchannel logout, with the sid it saw. Written in the caller's transaction, so
 * the revocation and the promise to notify land together; the relay turns each event into one 'backchannel'
 * delivery per client.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/contract.js';
import { audit, currentActor } from './audit.js';

export const BACKCHANNEL_LOGOUT = 'backchannel_logout';

/** A client to notify; `sid` is the session id the client saw in that session (absent: every session of `sub`). */
export interface LogoutTarget {
  client_id: string;
  sid?: string;
}

/** Signs a fresh logout token for the client (implemented with the engine in src/oidc/logout-token.ts). */
export type SignLogoutToken = (clientId: string, sub: string, sid?: string) => Promise<string>;

export interface BackchannelLogoutEvent {
  sub: string;
  targets: LogoutTarget[];
}

async function emitBackchannelLogout(store: Store, sub: string, targets: LogoutTarget[]): Promise<void> {
  if (!targets.length) return;
  const body = JSON.stringify({ sub, targets } satisfies BackchannelLogoutEvent);
  await store.events.append({ id: randomUUID(), type: BACKCHANNEL_LOGOUT, body, user_uuid: sub });
}

/** The stored body of a backchannel_logout event; undefined when it is not one. */
export function readBackchannelLogout(type: string, body: string): BackchannelLogoutEvent | undefined {
  if (type !== BACKCHANNEL_LOGOUT) return undefined;
  try {
    const parsed = JSON.parse(body) as BackchannelLogoutEvent;
    return typeof parsed.sub === 'string' && Array.isArray(parsed.targets) ? parsed : undefined;
  } catch {
    return undefined; // never written by us: nobody to notify, and the relay must not stall on it
  }
}

export interface EndedSession {
  sub: string;
  /** Every application of the SSO session, with its grant and session id. */
  authorizations: Array<{ client_id: string; grant_id?: string; sid?: string }>;
}

/**
 * After RP-initiated logout ended the SSO session: revoke every grant of the session (the engine did too;
 * repeating it here is harmless and covers tokens issued meanwhile) and queue the backchannel logouts.
 */
export async function recordEndedSession(store: Store, ended: EndedSession): Promise<void> {
  await store.transaction(async (tx) => {
    await endAuthorizations(tx, ended.sub, ended.authorizations);
    await audit(tx, 'logout', {
      user: ended.sub,
      actor: { ...currentActor(), type: 'user', id: ended.sub },
      details: { clients: ended.authorizations.map(({ client_id }) => client_id) },
    });
  });
}

/**
 * Inside the caller's transaction: the grants of a session's applications end with their tokens, and each
 * application hears a backchannel logout with the sid it saw in that session.
 */
async function endAuthorizations(tx: Store, sub: string, authorizations: EndedSession['authorizations']): Promise<void> {
  for (const { grant_id } of authorizations) {
    if (!grant_id) continue;
    await tx.oidcPayloads.revokeByGrantId(grant_id);
    await tx.oidcPayloads.destroy('Grant', grant_id);
  }
  await emitBackchannelLogout(
    tx,
    sub,
    authorizations.map(({ client_id, sid }) => (sid ? { client_id, sid } : { client_id })),
  );
}

/** The engine's uid of a stored session (what the account page's cookie names). */
const uidOf = (row: { uid: string | null; payload: Record<string, unknown> }) =>
  typeof row.payload.uid === 'string' ? row.payload.uid : row.uid;

/** A live browser session of the user as the engine stores it: each application in it with its sid and grant. */
interface SessionParticipants {
  authorizations: Array<{ client_id: string; sid?: string; grant_id?: string }>;
}

/** The engine's Session payload (oidc-provider 9.13 models/session.js): `authorizations` = {clientId: {sid, grantId}}. */
function participantsOf(payload: Record<string, unknown>): SessionParticipants {
  const authorizations = (payload.authorizations ?? {}) as Record<string, { sid?: unknown; grantId?: unknown } | undefined>;
  return {
    authorizations: Object.entries(authorizations).map(([client_id, entry]) => ({
      client_id,
      ...(typeof entry?.sid === 'string' ? { sid: entry.sid } : {}),
      ...(typeof entry?.grantId === 'string' ? { grant_id: entry.grantId } : {}),
    })),
  };
}

/** What is about to end, read in the caller's transaction: the user's live sessions and grants. */
async function readSignIns(tx: Store, userUuid: string, now: Date) {
  const sessions = await tx.oidcPayloads.findByAccount('Session', userUuid, now);
  const grants = await tx.oidcPayloads.findByAccount('Grant', userUuid, now);
  return {
    sessions: sessions.map((session) => participantsOf(session.payload)),
    grants: grants.filter((grant) => grant.client_id).map((grant) => ({ id: grant.id, client_id: grant.client_id! })),
  };
}

/**
 * Queues the backchannel logouts for grants that ended: one event per session they belonged to, naming each of
 * its applications with the sid that application saw there (mod_auth_openidc and others find their sessions by
 * sid); and one more with `sub` alone for applications whose grant belonged to no live session (refresh tokens
 * only). A session's event names each application once, so the relay makes one delivery per session and app.
 */
async function announceEndedGrants(
  tx: Store,
  userUuid: string,
  sessions: SessionParticipants[],
  ended: Array<{ id: string; client_id: string }>,
): Promise<void> {
  const endedGrants = new Map(ended.map((grant) => [grant.id, grant.client_id]));
  const covered = new Set<string>();
  for (const { authorizations } of sessions) {
    const targets: LogoutTarget[] = [];
    for (const { client_id, sid, grant_id } of authorizations) {
      if (!grant_id || endedGrants.get(grant_id) !== client_id) continue;
      covered.add(grant_id);
      targets.push(sid ? { client_id, sid } : { client_id });
    }
    await emitBackchannelLogout(tx, userUuid, targets);
  }
  const without = new Set(ended.filter((grant) => !covered.has(grant.id)).map((grant) => grant.client_id));
  await emitBackchannelLogout(
    tx,
    userUuid,
    [...without].sort().map((client_id) => ({ client_id })),
  );
}

/**
 * Deactivation, credential changes, "sign out everywhere": inside the caller's transaction, destroy every
 * session, grant and token of the user and queue the backchannel logouts (one per ended session and
 * application, with its sid). `keepSessionUid` spares one browser session; its grants and tokens still end, so
 * its applications hear a logout for it too.
 */
export async function signOutEverywhere(tx: Store, userUuid: string, keepSessionUid?: string): Promise<void> {
  const { sessions, grants } = await readSignIns(tx, userUuid, new Date());
  await tx.oidcPayloads.destroyByAccount(userUuid, keepSessionUid);
  await announceEndedGrants(tx, userUuid, sessions, grants);
}

/**
 * The user lost access to these applications (removed from their access group, or signed out of one on the
 * account page): inside the caller's transaction, end the user's grants and tokens with them and queue a
 * backchannel logout to those that had one, per session as above. The sessions themselves stay.
 */
export async function revokeApplicationAccess(tx: Store, userUuid: string, clientIds: string[]): Promise<void> {
  const now = new Date();
  const { sessions, grants } = await readSignIns(tx, userUuid, now);
  const revoked = new Set(await tx.oidcPayloads.revokeClientGrants(userUuid, clientIds, now));
  await announceEndedGrants(
    tx,
    userUuid,
    sessions,
    grants.filter((grant) => revoked.has(grant.client_id)),
  );
}

/** A live browser session of the user, as the account page and the admin console list it. */
export interface SessionView {
  /** The engine's session id (the row's id). */
  id: string;
  /** The session's uid (what the account page's cookie names). */
  uid: string | null;
  /** The browser as it said when it signed in, and when it was first and last used (session_devices). */
  userAgent: string | null;
  firstSeen: Date | null;
  lastSeen: Date | null;
  signedInAt: Date | null;
  amr: string[];
  clients: string[];
  expiresAt: Date | null;
}

export async function listSessions(store: Store, userUuid: string, now = new Date()): Promise<SessionView[]> {
  const rows = await store.oidcPayloads.findByAccount('Session', userUuid, now);
  const devices = new Map((await store.sessionDevices.list(rows.map((row) => row.id))).map((device) => [device.session_id, device]));
  return rows
    .map((row) => ({
      id: row.id,
      uid: uidOf(row),
      userAgent: devices.get(row.id)?.user_agent ?? null,
      firstSeen: devices.get(row.id)?.first_seen ?? null,
      lastSeen: devices.get(row.id)?.last_seen ?? null,
      signedInAt: typeof row.payload.loginTs === 'number' ? new Date(row.payload.loginTs * 1000) : null,
      amr: Array.isArray(row.payload.amr) ? (row.payload.amr as unknown[]).map(String) : [],
      clients: participantsOf(row.payload).authorizations.map(({ client_id }) => client_id),
      expiresAt: row.expires_at,
    }))
    .sort((a, b) => (b.signedInAt?.getTime() ?? 0) - (a.signedInAt?.getTime() ?? 0));
}

/**
 * Ends one browser session of the user (the account page, the admin console): the session, its grants and their
 * tokens end in one transaction, and each of its applications hears a backchannel logout with the sid it saw there.
 * The user's other sessions stay. Returns the ended session (its uid tells the account page whether it was its own);
 * undefined when the session is not (or no longer) theirs.
 */
export async function endOneSession(store: Store, userUuid: string, sessionId: string): Promise<{ uid: string | null } | undefined> {
  return store.transaction(async (tx) => {
    const session = (await tx.oidcPayloads.findByAccount('Session', userUuid, new Date())).find((row) => row.id === sessionId);
    if (!session) return undefined;
    const { authorizations } = participantsOf(session.payload);
    await endAuthorizations(tx, userUuid, authorizations);
    await tx.oidcPayloads.destroy('Session', session.id);
    await audit(tx, 'logout', { user: userUuid, details: { clients: authorizations.map(({ client_id }) => client_id), session: 'one' } });
    return { uid: uidOf(session) };
  });
}
