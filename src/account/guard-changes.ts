/**
 * What every change on the account page passes first: a readable form, a live account session, the CSRF token
 * of that session, the per-person rate limit, and a sign-in within the last ten minutes — older, the browser is
 * sent to sign in again (prompt=login) and comes back to the page.
 */
import type { Next } from 'koa';
import { PageError } from '../errors.js';
import { isRecent, type AccountContext } from './account-session.js';
import { startAccountSignIn } from './sign-in.js';
import type { AccountDeps } from './state.js';
import { waitText } from '../pages/wait-text.js';
import { actAs, currentActor } from '../domain/audit.js';

/** A fresh sign-in (prompt=login) for the person on the page, back to the page afterwards. */
export const confirmIdentity = (ctx: AccountContext, deps: AccountDeps) =>
  startAccountSignIn(ctx, deps, { returnTo: '/account/confirmed', fresh: { loginHint: ctx.state.account.user.email } });

export function guardChanges(deps: AccountDeps) {
  return async function guardChanges(ctx: AccountContext, next: Next) {
    const { sid, user } = ctx.state.account;
    if (!deps.cookies.isValidCsrf(sid, ctx.request.body?.csrf)) {
      throw new PageError(403, {
        title: 'Your account',
        heading: 'This form has expired',
        message: 'Reload your account page and try again.',
        link: { href: '/account/', label: 'Reload the page' },
      });
    }
    const limited = await deps.limits.attempt([['account_changes', user.uuid]]);
    if (!limited.allowed) {
      throw new PageError(429, {
        title: 'Your account',
        heading: 'Too many changes',
        message: `You have made many changes in a short time. Try again in ${waitText(limited.retryAfterSeconds)}.`,
        link: { href: '/account/', label: 'Back to your account' },
      });
    }
    if (!isRecent(ctx.state.account)) {
      // The passkey script fetches its options: it hears 401 and sends the page to /account/confirm itself.
      if (ctx.path.endsWith('/options')) {
        ctx.status = 401;
        ctx.body = { error: 'login_required' };
        return;
      }
      return confirmIdentity(ctx, deps);
    }
    // Whatever the change records in the audit trail, the person is its actor.
    return actAs({ ...currentActor(), type: 'user', id: user.uuid }, next);
  };
}
