/**
 * What every change on the account page passes first: a readable form, a live account session, the CSRF token
 * of that session, the per-person rate limit, and a sign-in within the last ten minutes — older, the browser is
 * sent to sign in again (prompt=login) and comes back to the page.
 */
import { waitValues } from '../pages/wait-text.js';
import type { Next } from 'koa';
import { PageError } from '../errors.js';
import { isRecent, type AccountContext } from './account-session.js';
import { startAccountSignIn } from './sign-in.js';
import type { AccountDeps } from './state.js';
import { text } from '../i18n/messages.js';
import { actAs, currentActor } from '../domain/audit.js';

/** A fresh sign-in (prompt=login) for the person on the page, back to the page afterwards. */
export const confirmIdentity = (ctx: AccountContext, deps: AccountDeps) =>
  startAccountSignIn(ctx, deps, { returnTo: '/account/confirmed', fresh: { loginHint: ctx.state.account.user.email } });

export function guardChanges(deps: AccountDeps) {
  return async function guardChanges(ctx: AccountContext, next: Next) {
    const { sid, user } = ctx.state.account;
    if (!deps.cookies.isValidCsrf(sid, ctx.request.body?.csrf)) {
      throw new PageError(403, {
        title: 'account.title',
        heading: 'account.form_expired.heading',
        message: 'account.form_expired.message',
        link: { href: '/account/', label: 'account.form_expired.link' },
      });
    }
    const limited = await deps.limits.attempt([['account_changes', user.uuid]]);
    if (!limited.allowed) {
      throw new PageError(429, {
        title: 'account.title',
        heading: 'account.too_many_changes.heading',
        message: text('account.too_many_changes.message', waitValues(limited.retryAfterSeconds)),
        link: { href: '/account/', label: 'account.too_many_changes.link' },
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
