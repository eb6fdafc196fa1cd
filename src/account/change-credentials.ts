/**
 * The account page's credential changes: password, TOTP (enrol, confirm, remove) and recovery codes (the profile:
 * change-profile.ts). Wrong input re-renders the page with the error beside its form and changes nothing.
 */
import QRCode from 'qrcode';
import { formField, type AccountContext } from './account-session.js';
import type { AccountDeps } from './state.js';
import { backToAccount, showError } from './show-account.js';
import { renderPage } from '../pages/render-page.js';
import { recoveryCodesFile } from '../pages/recovery-codes-file.js';
import { changePassword, regenerateRecoveryCodes, removeOwnTotp } from '../domain/account-changes.js';
import { chooseLocale } from '../i18n/choose-locale.js';
import { enrolTotp, otpauthUrl, pendingTotpSecret } from '../domain/totp.js';
import { waitValues } from '../pages/wait-text.js';
import { text, type Text } from '../i18n/messages.js';
import { userKey, type LimitKind } from '../domain/rate-limits.js';

export function submitPasswordChange(deps: AccountDeps) {
  return async function submitPasswordChange(ctx: AccountContext) {
    const { user, sid } = ctx.state.account;
    // Guesses at the current password count like sign-ins of this account (by its id) from this address and from
    // all: before the check, so parallel guesses cannot slip past; a right current password clears them.
    const account = userKey(user);
    const keys: Array<[LimitKind, string]> = [
      ['account', `${account}|${ctx.ip}`],
      ['account_total', account],
    ];
    const limited = await deps.limits.attempt(keys);
    if (!limited.allowed)
      return showError(ctx, deps, 'password', text('account.password.too_many', waitValues(limited.retryAfterSeconds)), 429);
    const outcome = await changePassword(deps.store, deps.sendMail, {
      user,
      current: formField(ctx, 'current'),
      password: formField(ctx, 'password'),
      confirmation: formField(ctx, 'confirmation'),
      policy: deps.settings.passwords,
      keepSession: sid,
      locale: chooseLocale(ctx),
    });
    if (outcome.ok || outcome.field !== 'current') await Promise.all(keys.map(([kind, key]) => deps.limits.reset(kind, key)));
    if (!outcome.ok) {
      const message = outcome.problems; // catalogue messages: the policy's, or the wrong current password
      return showError(ctx, deps, 'password', message);
    }
    return backToAccount(ctx, 'password-changed');
  };
}

async function renderTotpEnrolment(ctx: AccountContext, deps: AccountDeps, secret: string, error?: string | Text) {
  const { user, csrf } = ctx.state.account;
  const issuer = new URL(deps.settings.issuer.base_url).host;
  const qr = await QRCode.toDataURL(otpauthUrl(secret, user.email, issuer), { errorCorrectionLevel: 'M', margin: 1, scale: 6 });
  renderPage(
    ctx,
    'account-totp',
    { title: 'account.totp.set_up', csrf, qr, secret: secret.replace(/(.{4})/g, '$1 ').trim(), error },
    error ? 400 : 200,
  );
}

export function startTotp(deps: AccountDeps) {
  return async function startTotp(ctx: AccountContext) {
    const secret = await pendingTotpSecret(deps.store, ctx.state.account.user, deps.settings.secrets.key, true);
    if (!secret) return showError(ctx, deps, 'totp', 'account.two_step.already_set_up', 409);
    return renderTotpEnrolment(ctx, deps, secret);
  };
}

export function confirmTotp(deps: AccountDeps) {
  return async function confirmTotp(ctx: AccountContext) {
    const { user } = ctx.state.account;
    const key = deps.settings.secrets.key;
    const outcome = await enrolTotp(deps.store, user, formField(ctx, 'code').replace(/\s/g, ''), key);
    if (outcome !== 'ok') {
      const secret = await pendingTotpSecret(deps.store, user, key, false);
      if (!secret) return backToAccount(ctx, 'confirmed');
      return renderTotpEnrolment(ctx, deps, secret, 'account.totp.wrong_code');
    }
    return renderCodes(ctx, await regenerateRecoveryCodes(deps.store, user, key), 'account.codes.heading_on');
  };
}

export function removeTotp(deps: AccountDeps) {
  return async function removeTotp(ctx: AccountContext) {
    await removeOwnTotp(deps.store, ctx.state.account.user);
    return backToAccount(ctx, 'totp-removed');
  };
}

export function newRecoveryCodes(deps: AccountDeps) {
  return async function newRecoveryCodes(ctx: AccountContext) {
    const { user } = ctx.state.account;
    return renderCodes(ctx, await regenerateRecoveryCodes(deps.store, user, deps.settings.secrets.key), 'account.codes.heading_new');
  };
}

/** Shown once: as a list, as text to copy, and as a file to download. */
function renderCodes(ctx: AccountContext, codes: string[], heading: string) {
  renderPage(ctx, 'account-codes', {
    title: 'account.codes.title',
    heading,
    scripts: true,
    codes,
    ...recoveryCodesFile(codes, ctx.state.account.user.email),
  });
}
