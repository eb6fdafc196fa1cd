/**
 * Logout (spec §2.5, §6.2): ending sessions revokes grants and writes ONE outbox event naming every client
 * that must hear a backchannel logout. Written in the caller's transaction, so the revocation and the
 * promise to notify land together; the relay turns the event into one 'backchannel' delivery per client.
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
    for (const { grant_id } of ended.authorizations) {
      if (!grant_id) continue;
      await tx.oidcPayloads.revokeByGrantId(grant_id);
      await tx.oidcPayloads.destroy('Grant', grant_id);
    }
    await emitBackchannelLogout(
      tx,
      ended.sub,
      ended.authorizations.map(({ client_id, sid }) => (sid ? { client_id, sid } : { client_id })),
    );
    await audit(tx, 'logout', {
      user: ended.sub,
      actor: { ...currentActor(), type: 'user', id: ended.sub },
      details: { clients: ended.authorizations.map(({ client_id }) => client_id) },
    });
  });
}

/**
 * Deactivation: inside the caller's transaction, destroy every session, grant and token of the user and
 * queue a backchannel logout to each client the user held a grant with. `keepSessionUid` spares one browser
 * session (its grants and tokens still end).
 */
export async function signOutEverywhere(tx: Store, userUuid: string, keepSessionUid?: string): Promise<void> {
  const clients = await tx.oidcPayloads.grantedClients(userUuid, new Date());
  await tx.oidcPayloads.destroyByAccount(userUuid, keepSessionUid);
  await emitBackchannelLogout(
    tx,
    userUuid,
    clients.map((client_id) => ({ client_id })),
  );
}

/**
 * The user lost access to these applications (removed from their access group): inside the caller's
 * transaction, end the user's grants and tokens with them and queue a backchannel logout to those that had one.
 */
export async function revokeApplicationAccess(tx: Store, userUuid: string, clientIds: string[]): Promise<void> {
  const revoked = await tx.oidcPayloads.revokeClientGrants(userUuid, clientIds, new Date());
  await emitBackchannelLogout(
    tx,
    userUuid,
    revoked.map((client_id) => ({ client_id })),
  );
}
