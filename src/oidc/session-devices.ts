/**
 * Notes the browser of each signed-in session for the account page (session_devices): its user agent when the
 * session first signs in, and when it was last used to sign in to an application. After the engine answered, at
 * most once per five minutes per session and process (a single sign-on burst costs one write), and never in the
 * way of the answer: a failure is logged.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import type { Store } from '../store/contract.js';

const EVERY_MS = 5 * 60_000;
const REMEMBERED = 10_000;
const USER_AGENT_LIMIT = 512;

export function recordSessionDevices(store: Store, logger: Logger) {
  const written = new Map<string, number>();
  return async function recordSessionDevice(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
    await next();
    const route = ctx.oidc?.route;
    if (route !== 'resume' && route !== 'authorization' && route !== 'device_resume') return;
    const session = ctx.oidc.session as unknown as { id?: string; accountId?: string } | undefined;
    if (!session?.id || !session.accountId) return;
    const now = Date.now();
    if (route !== 'resume' && now - (written.get(session.id) ?? 0) < EVERY_MS) return;
    if (written.size >= REMEMBERED) written.clear();
    written.set(session.id, now);
    try {
      await store.sessionDevices.seen(
        session.id,
        session.accountId,
        (ctx.get('user-agent') ?? '').slice(0, USER_AGENT_LIMIT),
        new Date(now),
      );
    } catch (error) {
      logger.warn({ err: error }, 'noting the browser of a session failed');
    }
  };
}
