/**
 * Who is on the account page: a cookie naming the SSO session (sid) and its user, set after the account client's
 * sign-in (callback.ts) and checked on every request against the engine's session, so a logout anywhere, a
 * sign-in as someone else in this browser, or a deactivation ends the account page at once.
 */
import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { UserRow } from '../store/contract.js';
import { findUserByUuid } from '../domain/users.js';
import type { AccountDeps } from './state.js';
import type { LanguageHints } from '../i18n/choose-locale.js';
import { startAccountSignIn } from './sign-in.js';

/** Changes ask for a fresh sign-in when the last one is older than this (password or passkey again). */
export const RECENT_SECONDS = 10 * 60;

export interface AccountSession {
  user: UserRow;
  sid: string;
  /** When the user last proved who they are (seconds since the epoch) and how (RFC 8176). */
  authTime: number;
  amr: string[];
  csrf: string;
}

export type AccountContext = Context & { state: { account: AccountSession }; request: { body?: Record<string, unknown> } };

/** Loads the account session, or sends the browser to sign in (GET) or refuses (anything else). */
export function loadAccountSession(deps: AccountDeps) {
  return async function loadAccountSession(ctx: AccountContext, next: Next) {
    const found = await currentSession(ctx, deps);
    if (!found) {
      if (ctx.method === 'GET') return startAccountSignIn(ctx, deps, { returnTo: ctx.path });
      deps.cookies.clear(ctx);
      ctx.status = 303;
      return ctx.redirect(`${deps.portal.path}/`);
    }
    ctx.state.account = found;
    if (deps.portal.translated) {
      // The account's stored locale is a hint for its pages' language; a page answering a POST switches back to /account/.
      const { attributes } = found.user;
      const stored = [attributes?.locale, attributes?.preferred_language].find((tag) => typeof tag === 'string' && tag);
      ctx.state.language = {
        ...((ctx.state.language ?? {}) as LanguageHints),
        account: stored as string | undefined,
        back: `${deps.portal.path}/`,
      } satisfies LanguageHints;
    }
    return next();
  };
}

async function currentSession(ctx: Context, deps: AccountDeps): Promise<AccountSession | undefined> {
  const cookie = deps.cookies.read(ctx);
  if (!cookie) return undefined;
  const provider = deps.provider() as Provider & {
    Session: { findByUid(uid: string): Promise<{ accountId?: string; loginTs?: number; amr?: string[] } | undefined> };
  };
  const [session, user] = await Promise.all([provider.Session.findByUid(cookie.sid), findUserByUuid(deps.store, cookie.sub)]);
  if (!session || session.accountId !== cookie.sub || !user?.is_active) return undefined;
  return { user, sid: cookie.sid, authTime: session.loginTs ?? 0, amr: session.amr ?? [], csrf: deps.cookies.csrfFor(cookie.sid) };
}

/** A posted form field as text ('' when absent). */
export const formField = (ctx: AccountContext, name: string) => String(ctx.request.body?.[name] ?? '');

/** True when the user proved who they are within the last ten minutes. */
export const isRecent = (session: AccountSession, now = Date.now()) => now / 1000 - session.authTime <= RECENT_SECONDS;
