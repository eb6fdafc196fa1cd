/**
 * The account page under /account/: GET pages behind the account session (sign in first when there is none),
 * POST changes behind the session, its CSRF token, a per-person rate limit and a recent sign-in.
 */
import Router from '@koa/router';
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { relyingPartyOf } from '../domain/passkeys.js';
import { sealer } from './seal.js';
import { parseForm } from '../http/forms.js';
import { ACCOUNT_CLIENT_ID } from '../domain/account-client.js';
import { loadAccountSession } from './account-session.js';
import { accountCookies } from './account-cookie.js';
import { accountCallback } from './callback.js';
import { confirmIdentity, guardChanges } from './guard-changes.js';
import { showAccount } from './show-account.js';
import { confirmTotp, newRecoveryCodes, removeTotp, startTotp, submitPasswordChange } from './change-credentials.js';
import { cancelEmail, confirmEmail, saveProfile } from './change-profile.js';
import {
  addPasskey,
  changePasskey,
  passkeyRegistrationOptions,
  signOutApplication,
  signOutEverywhere,
  signOutDevice,
  confirmSignOutEverywhere,
  unlinkSource,
} from './change-access.js';
import type { AccountDeps } from './state.js';
import { ACCOUNT_PORTAL } from './portal.js';

/** What the composition root hands the account page: the shared parts of its handlers' `AccountDeps`, and the providers. */
export interface AccountParts extends Pick<AccountDeps, 'store' | 'settings' | 'limits' | 'sendMail' | 'enqueue' | 'logger'> {
  /** The providers by client_id, as the key rotation keeps them current. */
  providers: { byClientId: Map<string, { app: { name: string }; provider: Provider }> };
}

export function accountMiddleware(parts: AccountParts): Middleware {
  const { settings, providers } = parts;
  const seals = sealer(settings.secrets.key);
  const deps: AccountDeps = {
    ...parts,
    portal: ACCOUNT_PORTAL,
    rp: relyingPartyOf(settings.issuer.base_url),
    cookies: accountCookies(seals, settings.secrets.key, settings.issuer.base_url.startsWith('https:'), ACCOUNT_PORTAL),
    provider: () => providers.byClientId.get(ACCOUNT_CLIENT_ID)!.provider,
    appName: (clientId) => (clientId === ACCOUNT_CLIENT_ID ? undefined : providers.byClientId.get(clientId)?.app.name),
    ...seals,
  };
  const router = new Router({ prefix: '/account', strict: false });
  const session = loadAccountSession(deps) as Middleware;
  const change = [parseForm() as Middleware, session, guardChanges(deps) as Middleware];
  const show = showAccount(deps) as Middleware;
  router.get('/', session, show);
  router.get('/confirmed', session, async (ctx) => {
    ctx.status = 303;
    ctx.redirect('/account/?notice=confirmed');
  });
  router.get('/confirm', session, (async (ctx) => confirmIdentity(ctx as never, deps)) as Middleware);
  router.get('/callback', accountCallback(deps) as Middleware);
  router.post('/profile', ...change, saveProfile(deps) as Middleware);
  router.post('/email/confirm', ...change, confirmEmail(deps) as Middleware);
  router.post('/email/cancel', ...change, cancelEmail(deps) as Middleware);
  router.post('/password', ...change, submitPasswordChange(deps) as Middleware);
  router.post('/totp/start', ...change, startTotp(deps) as Middleware);
  router.post('/totp/confirm', ...change, confirmTotp(deps) as Middleware);
  router.post('/totp/remove', ...change, removeTotp(deps) as Middleware);
  router.post('/recovery-codes', ...change, newRecoveryCodes(deps) as Middleware);
  router.post('/passkeys/options', ...change, passkeyRegistrationOptions(deps) as Middleware);
  router.post('/passkeys/add', ...change, addPasskey(deps) as Middleware);
  router.post('/passkeys/rename', ...change, changePasskey(deps) as Middleware);
  router.post('/passkeys/remove', ...change, changePasskey(deps) as Middleware);
  router.post('/sources/unlink', ...change, unlinkSource(deps) as Middleware);
  router.post('/apps/sign-out', ...change, signOutApplication(deps) as Middleware);
  router.post('/devices/sign-out', ...change, signOutDevice(deps) as Middleware);
  router.get('/sign-out-everywhere', session, confirmSignOutEverywhere() as Middleware);
  router.post('/sign-out-everywhere', ...change, signOutEverywhere(deps) as Middleware);
  // /account without the slash: the page.
  const bare: Middleware = async (ctx, next) => {
    if (ctx.path !== '/account' || ctx.method !== 'GET') return next();
    ctx.status = 301;
    ctx.redirect('/account/');
  };
  return compose<any>([bare, router.routes(), router.allowedMethods()]) as Middleware;
}
