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
import { checkForm, requireAdministrator, startFresh } from './guard.js';
import { showOverview, showUser, showUsers } from './pages.js';
import { confirmAction, runAction } from './actions.js';
import {
  editPerson,
  newPerson,
  showPasswordForm,
  submitEdit,
  submitEndSession,
  submitPassword,
  submitPerson,
  submitUnlink,
} from './people.js';
import { changeGroup, confirmGroupDelete, showGroup, showGroups, submitGroup } from './groups.js';
import { showApplication, showApplications } from './applications.js';
import { redeliverDelivery, showDeliveries, showDelivery } from './deliveries.js';
import { exportAudit, showAudit } from './audit.js';
import { confirmRevoke, confirmRotation, showTokens, submitRevoke, submitRotation, submitToken } from './tokens.js';

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
  const page = [startFresh(deps), loadAccountSession(deps), requireAdministrator(deps)] as Middleware[];
  const form = [parseForm() as Middleware, ...page, checkForm(deps) as Middleware];
  router.get('/callback', accountCallback(deps) as Middleware);
  // Handlers called as (ctx) only: some take what to show as a second argument.
  const only =
    (handler: (ctx: any) => unknown): Middleware =>
    async (ctx) =>
      void (await handler(ctx));
  router.get('/', ...page, only(showOverview(deps)));
  router.get('/keys/confirm-rotate', ...page, only(confirmRotation()));
  router.post('/keys/rotate', ...form, only(submitRotation(deps)));
  router.get('/users/', ...page, only(showUsers(deps)));
  router.get('/users/new', ...page, only(newPerson()));
  router.post('/users/', ...form, only(submitPerson(deps)));
  router.get('/users/:pk/', ...page, only(showUser(deps)));
  router.get('/users/:pk/edit', ...page, only(editPerson(deps)));
  router.post('/users/:pk/edit', ...form, only(submitEdit(deps)));
  router.post('/users/:pk/unlink-source', ...form, only(submitUnlink(deps)));
  router.post('/users/:pk/end-session', ...form, only(submitEndSession(deps)));
  router.get('/users/:pk/password', ...page, only(showPasswordForm(deps)));
  router.post('/users/:pk/password', ...form, only(submitPassword(deps)));
  router.get('/users/:pk/confirm/:action', ...page, only(confirmAction(deps)));
  router.post('/users/:pk/:action', ...form, only(runAction(deps)));
  router.get('/groups/', ...page, only(showGroups(deps)));
  router.post('/groups/', ...form, only(submitGroup(deps)));
  router.get('/groups/:pk/', ...page, only(showGroup(deps)));
  router.get('/groups/:pk/confirm-delete', ...page, only(confirmGroupDelete(deps)));
  router.post('/groups/:pk/:change', ...form, only(changeGroup(deps)));
  router.get('/applications/', ...page, only(showApplications(deps)));
  router.get('/applications/:slug/', ...page, only(showApplication(deps)));
  router.get('/deliveries/', ...page, only(showDeliveries(deps)));
  router.get('/deliveries/:id/', ...page, only(showDelivery(deps)));
  router.post('/deliveries/:id/redeliver', ...form, only(redeliverDelivery(deps)));
  router.get('/audit/', ...page, only(showAudit(deps)));
  router.get('/audit/export.csv', ...page, only(exportAudit(deps)));
  router.get('/tokens/', ...page, only(showTokens(deps)));
  router.post('/tokens/', ...form, only(submitToken(deps)));
  router.get('/tokens/:id/confirm-revoke', ...page, only(confirmRevoke(deps)));
  router.post('/tokens/:id/revoke', ...form, only(submitRevoke(deps)));
  const bare: Middleware = async (ctx, next) => {
    if (ctx.path !== '/admin' || ctx.method !== 'GET') return next();
    ctx.status = 301;
    ctx.redirect('/admin/');
  };
  return compose<any>([bare, router.routes(), router.allowedMethods()]) as Middleware;
}
