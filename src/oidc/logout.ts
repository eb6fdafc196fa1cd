/**
 * Logout fan-out around the engine. One SSO session spans every application's provider, but each provider
 * only knows its own client: after its end-session ends that session, we record the logout for EVERY
 * application of the session (revocation + backchannel outbox event, src/domain/logout.ts). The engine's
 * own backchannel sender (one try, 2.5 s, no log) is replaced by a no-op: queued jobs deliver instead.
 */
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import type { Store } from '../store/contract.js';
import { recordEndedSession } from '../domain/logout.js';

interface SessionAuthorization {
  sid?: string;
  grantId?: string;
}

interface SessionSnapshot {
  accountId?: string;
  destroyed?: boolean;
  authorizations?: Record<string, SessionAuthorization>;
}

/** Internal API of oidc-provider 9.13 (models/client.js): keep test/logout covering this override. */
export function replaceBackchannelSender(provider: Provider): void {
  (provider.Client.prototype as unknown as { backchannelLogout: () => Promise<void> }).backchannelLogout = async () => {};
}

export function recordEndedSessions(store: Store, logger: Logger) {
  return async function recordEnded(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
    await next();
    if (ctx.oidc?.route !== 'end_session_confirm' || ctx.status !== 303) return;
    const session = ctx.oidc.session as unknown as SessionSnapshot | undefined;
    if (!session?.destroyed || !session.accountId) return;
    const authorizations = Object.entries(session.authorizations ?? {}).map(([client_id, { sid, grantId }]) => ({
      client_id,
      ...(sid ? { sid } : {}),
      ...(grantId ? { grant_id: grantId } : {}),
    }));
    try {
      await recordEndedSession(store, { sub: session.accountId, authorizations });
    } catch (error) {
      // The engine already revoked the grants and ended the session; only the notifications are lost.
      logger.error({ err: error, sub: session.accountId }, 'recording the logout for backchannel delivery failed');
    }
  };
}
