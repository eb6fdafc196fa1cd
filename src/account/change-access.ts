/**
 * The account page's passkeys (add, rename, remove), links to upstream identity providers (unlink), and sign-outs
 * (one application, or everywhere).
 */
import { formField, type AccountContext } from './account-session.js';
import type { AccountDeps } from './state.js';
import { backToAccount, renderAccount } from './show-account.js';
import { registerPasskey, registrationOptions } from '../domain/passkeys.js';
import { removePasskey, renamePasskey, signOutOfApplication, signOutOfEverything } from '../domain/account-changes.js';
import { renderPage } from '../pages/render-page.js';
import { unlinkOwnSource } from '../domain/source-links.js';
import { endOneSession } from '../domain/logout.js';

const purposeOf = (ctx: AccountContext) => `account:${ctx.state.account.sid}`;

export function passkeyRegistrationOptions(deps: AccountDeps) {
  return async function passkeyRegistrationOptions(ctx: AccountContext) {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await registrationOptions(deps.store, deps.rp, ctx.state.account.user, purposeOf(ctx));
  };
}

export function addPasskey(deps: AccountDeps) {
  return async function addPasskey(ctx: AccountContext) {
    const name = formField(ctx, 'name').trim() || 'Passkey';
    const added = await registerPasskey(deps.store, deps.rp, ctx.state.account.user, {
      answer: formField(ctx, 'response'),
      purpose: purposeOf(ctx),
      name,
    });
    if (!added)
      return renderAccount(ctx, deps, {
        error: { section: 'passkeys', message: 'The passkey could not be added. Try again.' },
        status: 400,
      });
    return backToAccount(ctx, 'passkey-added');
  };
}

export function changePasskey(deps: AccountDeps) {
  return async function changePasskey(ctx: AccountContext) {
    const { user } = ctx.state.account;
    const id = formField(ctx, 'id');
    if (ctx.path.endsWith('/remove')) {
      if (!(await removePasskey(deps.store, user, id)))
        return renderAccount(ctx, deps, { error: { section: 'passkeys', message: 'That passkey was not found.' }, status: 404 });
      return backToAccount(ctx, 'passkey-removed');
    }
    if (!(await renamePasskey(deps.store, user, id, formField(ctx, 'name')))) {
      return renderAccount(ctx, deps, {
        error: { section: 'passkeys', message: 'Give the passkey a name (at most 64 characters).' },
        status: 400,
      });
    }
    return backToAccount(ctx, 'passkey-renamed');
  };
}

export function signOutApplication(deps: AccountDeps) {
  return async function signOutApplication(ctx: AccountContext) {
    const clientId = formField(ctx, 'client_id');
    if (!deps.appName(clientId))
      return renderAccount(ctx, deps, { error: { section: 'apps', message: 'That application is not known.' }, status: 404 });
    await signOutOfApplication(deps.store, ctx.state.account.user, clientId);
    return backToAccount(ctx, 'app-signed-out');
  };
}

export function signOutEverywhere(deps: AccountDeps) {
  return async function signOutEverywhere(ctx: AccountContext) {
    await signOutOfEverything(deps.store, ctx.state.account.user);
    deps.cookies.clear(ctx);
    renderPage(ctx, 'message', {
      title: 'Signed out',
      heading: 'You are signed out everywhere',
      message: 'Every application and browser you were signed in with has been signed out.',
      link: { href: '/account/', label: 'Sign in again' },
    });
  };
}

export function unlinkSource(deps: AccountDeps) {
  return async function unlinkSource(ctx: AccountContext) {
    const outcome = await unlinkOwnSource(deps.store, ctx.state.account.user, formField(ctx, 'source'));
    if (outcome === 'unlinked') return backToAccount(ctx, 'source-unlinked');
    const message =
      outcome === 'last_way'
        ? 'This is your only way to sign in. Set a password or add a passkey first, then unlink it.'
        : 'That link was not found.';
    return renderAccount(ctx, deps, { error: { section: 'sources', message }, status: outcome === 'last_way' ? 409 : 404 });
  };
}

/** "Sign out" of one of the person's browsers; of this one, the account page's own session ends with it. */
export function signOutDevice(deps: AccountDeps) {
  return async function signOutDevice(ctx: AccountContext) {
    const { user, sid } = ctx.state.account;
    const ended = await endOneSession(deps.store, user.uuid, formField(ctx, 'session'));
    if (!ended)
      return renderAccount(ctx, deps, { error: { section: 'devices', message: 'That browser is signed out already.' }, status: 404 });
    if (ended.uid !== sid) return backToAccount(ctx, 'device-signed-out');
    deps.cookies.clear(ctx);
    renderPage(ctx, 'message', {
      title: 'Signed out',
      heading: 'You are signed out of this browser',
      message: 'This browser and the applications you used in it are signed out. Your other browsers stay signed in.',
      link: { href: '/account/', label: 'Sign in again' },
    });
  };
}

/** "Sign out everywhere" asks first: it ends every browser and application at once. */
export function confirmSignOutEverywhere() {
  return async function confirmSignOutEverywhere(ctx: AccountContext) {
    renderPage(ctx, 'confirm', {
      title: 'Sign out everywhere?',
      heading: 'Sign out everywhere?',
      explain:
        'Every browser and application you are signed in with, this one included, is signed out. You sign in again where you need to.',
      action: '/account/sign-out-everywhere',
      button: 'Sign out everywhere',
      back: '/account/#devices',
      csrf: ctx.state.account.csrf,
    });
  };
}
