/**
 * The admin console under /admin/ (docs/operating.md): signed in through its own built-in client like the account
 * page, for members of `admin.group` with a second factor (guard.ts). Pages show (pages.ts); actions change through
 * the API's domain functions after a confirmation page, with the session's CSRF token and a recent sign-in
 * (actions.ts). Every page works without JavaScript.
 */
import Router from '@koa/router';
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import { relyingPartyOf } from '../domain/passkeys.js';
import { parseForm } from '../http/forms.js';
import { ADMIN_CLIENT_ID } from '../domain/account-client.js';
import { sealer } from '../account/seal.js';
import { accountCookies } from '../account/account-cookie.js';
import { loadAccountSession } from '../account/account-session.js';
import { accountCallback } from '../account/callback.js';
import { ADMIN_PORTAL } from '../account/portal.js';
import type { AccountParts } from '../account/router.js';
import type { AccountDeps } from '../account/state.js';
import { checkForm, requireAdministrator } from './guard.js';
import { showOverview, showUser, showUsers } from './pages.js';
import { confirmAction, runAction } from './actions.js';

export function adminMiddleware(parts: AccountParts): Middleware {
  const { settings, providers } = parts;
  const seals = sealer(settings.secrets.key);
  const https = settings.issuer.base_url.startsWith('https:');
  const deps: AccountDeps = {
    ...parts,
    portal: ADMIN_PORTAL,
    rp: relyingPartyOf(settings.issuer.base_url),
    // The cookie lives as long as the console may stay idle; each request writes it again (guard.ts).
    cookies: accountCookies(seals, settings.secrets.key, https, ADMIN_PORTAL, settings.admin.idle_seconds),
    provider: () => providers.byClientId.get(ADMIN_CLIENT_ID)!.provider,
    appName: (clientId) => providers.byClientId.get(clientId)?.app.name,
    ...seals,
  };
  const router = new Router({ prefix: '/admin', strict: false });
  const page = [loadAccountSession(deps), requireAdministrator(deps)] as Middleware[];
  const form = [parseForm() as Middleware, ...page, checkForm(deps) as Middleware];
  router.get('/callback', accountCallback(deps) as Middleware);
  router.get('/', ...page, showOverview(deps) as Middleware);
  router.get('/users/', ...page, showUsers(deps) as Middleware);
  router.get('/users/:pk/', ...page, showUser(deps) as unknown as Middleware);
  router.get('/users/:pk/confirm/:action', ...page, confirmAction(deps) as unknown as Middleware);
  router.post('/users/:pk/:action', ...form, runAction(deps) as unknown as Middleware);
  const bare: Middleware = async (ctx, next) => {
    if (ctx.path !== '/admin' || ctx.method !== 'GET') return next();
    ctx.status = 301;
    ctx.redirect('/admin/');
  };
  return compose<any>([bare, router.routes(), router.allowedMethods()]) as Middleware;
}
