/**
 * The account page's passkeys (add, rename, remove), links to upstream identity providers (unlink), and sign-outs
 * (one application, or everywhere).
 */
import { formField, type AccountContext } from './account-session.js';
import type { AccountDeps } from './state.js';
import { backToAccount, showError } from './show-account.js';
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
    if (!added) return showError(ctx, deps, 'passkeys', 'account.passkeys.add_failed');
    return backToAccount(ctx, 'passkey-added');
  };
}

export function changePasskey(deps: AccountDeps) {
  return async function changePasskey(ctx: AccountContext) {
    const { user } = ctx.state.account;
    const id = formField(ctx, 'id');
    if (ctx.path.endsWith('/remove')) {
      if (!(await removePasskey(deps.store, user, id))) return showError(ctx, deps, 'passkeys', 'account.passkeys.not_found', 404);
      return backToAccount(ctx, 'passkey-removed');
    }
    if (!(await renamePasskey(deps.store, user, id, formField(ctx, 'name')))) {
      return showError(ctx, deps, 'passkeys', 'account.passkeys.name_invalid');
    }
    return backToAccount(ctx, 'passkey-renamed');
  };
}

export function signOutApplication(deps: AccountDeps) {
  return async function signOutApplication(ctx: AccountContext) {
    const clientId = formField(ctx, 'client_id');
    if (!deps.appName(clientId)) return showError(ctx, deps, 'apps', 'account.apps.unknown', 404);
    await signOutOfApplication(deps.store, ctx.state.account.user, clientId);
    return backToAccount(ctx, 'app-signed-out');
  };
}

/** The account page's own session has ended: say so, with the way back in. */
function signedOut(ctx: AccountContext, deps: AccountDeps, heading: string, message: string) {
  deps.cookies.clear(ctx);
  renderPage(ctx, 'message', {
    title: 'account.signed_out.title',
    heading,
    message,
    link: { href: '/account/', label: 'account.sign_in_again' },
  });
}

export function signOutEverywhere(deps: AccountDeps) {
  return async function signOutEverywhere(ctx: AccountContext) {
    await signOutOfEverything(deps.store, ctx.state.account.user);
    signedOut(ctx, deps, 'account.signed_out.everywhere_heading', 'account.signed_out.everywhere_message');
  };
}

export function unlinkSource(deps: AccountDeps) {
  return async function unlinkSource(ctx: AccountContext) {
    const outcome = await unlinkOwnSource(deps.store, ctx.state.account.user, formField(ctx, 'source'));
    if (outcome === 'unlinked') return backToAccount(ctx, 'source-unlinked');
    const message = outcome === 'last_way' ? 'account.sources.last_way' : 'account.sources.not_found';
    return showError(ctx, deps, 'sources', message, outcome === 'last_way' ? 409 : 404);
  };
}

/** "Sign out" of one of the person's browsers; of this one, the account page's own session ends with it. */
export function signOutDevice(deps: AccountDeps) {
  return async function signOutDevice(ctx: AccountContext) {
    const { user, sid } = ctx.state.account;
    const ended = await endOneSession(deps.store, user.uuid, formField(ctx, 'session'));
    if (!ended) return showError(ctx, deps, 'devices', 'account.devices.already_signed_out', 404);
    if (ended.uid !== sid) return backToAccount(ctx, 'device-signed-out');
    signedOut(ctx, deps, 'account.signed_out.this_browser_heading', 'account.signed_out.this_browser_message');
  };
}

/** "Sign out everywhere" asks first: it ends every browser and application at once. */
export function confirmSignOutEverywhere() {
  return async function confirmSignOutEverywhere(ctx: AccountContext) {
    renderPage(ctx, 'confirm', {
      title: 'account.everywhere.question',
      heading: 'account.everywhere.question',
      explain: 'account.everywhere.explain',
      action: '/account/sign-out-everywhere',
      button: 'account.everywhere.sign_out',
      back: '/account/#devices',
      csrf: ctx.state.account.csrf,
    });
  };
}
