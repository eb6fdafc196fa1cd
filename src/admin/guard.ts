/**
 * Who may use the admin console, checked on every request after the portal's session (src/account/account-session.ts):
 * the session is younger than `admin.absolute_seconds` (its idle limit is the cookie's own life, renewed here); the
 * person is a member of `admin.group`, else a 403 page; their sign-in used a second factor unless
 * `admin.require_mfa` is false, else they sign in again (the console's client requires one, so the sign-in pages ask
 * for it, or enrol one). Whatever the console changes, the administrator is its actor in the audit trail.
 */
import type { Next } from 'koa';
import { PageError } from '../errors.js';
import type { Store, UserRow } from '../store/contract.js';
import type { AccountContext } from '../account/account-session.js';
import type { AccountDeps } from '../account/state.js';
import { startAccountSignIn } from '../account/sign-in.js';
import { actAs, currentActor } from '../domain/audit.js';
import { hasSecondFactor } from '../domain/second-factors.js';

export async function isAdministrator(store: Store, user: UserRow, group: string): Promise<boolean> {
  const found = await store.users.findByUuidWithGroups(user.uuid);
  return Boolean(found?.groups.includes(await store.groups.comparableName(group)));
}

/**
 * The console's session starts with a sign-in of its own (prompt=login: the password and second factor again, even
 * inside a single sign-on session of another application), and again once it has been idle too long.
 */
export function startFresh(deps: AccountDeps) {
  return async function startFresh(ctx: AccountContext, next: Next) {
    if (ctx.method === 'GET' && !deps.cookies.read(ctx)) return startAccountSignIn(ctx, deps, { returnTo: ctx.path, fresh: {} });
    return next();
  };
}

export function requireAdministrator(deps: AccountDeps) {
  const { admin } = deps.settings;
  return async function requireAdministrator(ctx: AccountContext, next: Next) {
    const { account } = ctx.state;
    const since = deps.cookies.read(ctx)?.since ?? 0;
    const again = () =>
      startAccountSignIn(ctx, deps, { returnTo: ctx.method === 'GET' ? ctx.path : '/admin/', fresh: { loginHint: account.user.email } });
    if (Date.now() - since > admin.absolute_seconds * 1000) {
      deps.cookies.clear(ctx);
      return again();
    }
    if (!(await isAdministrator(deps.store, account.user, admin.group)))
      throw new PageError(403, {
        title: 'Admin console',
        heading: 'You cannot use the admin console',
        message: 'Your account is not one of the administrators. If you should be one, ask an administrator to add you.',
        link: { href: '/account/', label: 'Go to your account' },
      });
    if (admin.require_mfa && !hasSecondFactor(account.amr)) return again();
    deps.cookies.set(ctx, account.sid, account.user.uuid, since); // the idle limit starts again
    return actAs({ ...currentActor(), type: 'user', id: account.user.uuid }, next);
  };
}

/** Forms of the console: its session's CSRF token, and a recent sign-in for what cannot be taken back. */
export function checkForm(deps: AccountDeps) {
  return async function checkForm(ctx: AccountContext, next: Next) {
    const { account } = ctx.state;
    if (!deps.cookies.isValidCsrf(account.sid, ctx.request.body?.csrf))
      throw new PageError(403, {
        title: 'Admin console',
        heading: 'This form has expired',
        message: 'Nothing was changed. Reload the page and try again.',
        link: { href: '/admin/', label: 'Back to the console' },
      });
    if (Date.now() / 1000 - account.authTime > deps.settings.admin.reauth_seconds)
      return startAccountSignIn(ctx, deps, { returnTo: ctx.path.replace(/[^/]+$/, ''), fresh: { loginHint: account.user.email } });
    return next();
  };
}
