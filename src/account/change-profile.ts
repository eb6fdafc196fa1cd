/**
 * The account page's profile (with `account.profile_edits: true`): the name is saved at once; a new e-mail address
 * waits for the code mailed to it (domain/email-change.ts), typed here, or is given up. Wrong input re-renders the
 * page with the error beside the profile and changes nothing.
 */
import { formField, type AccountContext } from './account-session.js';
import type { AccountDeps } from './state.js';
import { backToAccount, showError } from './show-account.js';
import { cancelEmailChange, confirmEmailChange, EMAIL_CODE_TRIES, requestEmailChange } from '../domain/email-change.js';
import { chooseLocale } from '../i18n/choose-locale.js';
import { updateUser } from '../domain/users.js';
import { codeProblemMessage } from '../pages/code-problem.js';
import type { Text } from '../i18n/messages.js';

const profileError = (ctx: AccountContext, deps: AccountDeps, message: string | Text, status = 400) =>
  showError(ctx, deps, 'profile', message, status);

const managedByAdministrator = (ctx: AccountContext, deps: AccountDeps) => profileError(ctx, deps, 'account.profile.managed', 403);

export function saveProfile(deps: AccountDeps) {
  return async function saveProfile(ctx: AccountContext) {
    const { user } = ctx.state.account;
    if (!deps.settings.account.profile_edits) return managedByAdministrator(ctx, deps);
    const name = formField(ctx, 'name').trim();
    if (!name || name.length > 150) return profileError(ctx, deps, 'account.profile.name_invalid');
    // The address first: a refused one saves nothing, the name included.
    const asked = await requestEmailChange(deps.store, deps.sendMail, {
      user,
      email: formField(ctx, 'email'),
      key: deps.settings.secrets.key,
      locale: chooseLocale(ctx),
    });
    if (!asked.ok)
      return profileError(ctx, deps, asked.problem === 'invalid' ? 'account.profile.email_invalid' : 'account.profile.email_taken');
    if (name !== user.name) await updateUser(deps.store, user.id, { name });
    return backToAccount(ctx, asked.pending ? 'email-code-sent' : 'profile-saved');
  };
}

export function confirmEmail(deps: AccountDeps) {
  return async function confirmEmail(ctx: AccountContext) {
    if (!deps.settings.account.profile_edits) return managedByAdministrator(ctx, deps);
    const check = await confirmEmailChange(deps.store, deps.sendMail, {
      user: ctx.state.account.user,
      code: formField(ctx, 'code'),
      key: deps.settings.secrets.key,
      locale: chooseLocale(ctx),
    });
    if (check.ok) return backToAccount(ctx, 'email-changed');
    return profileError(ctx, deps, codeProblemMessage(check, EMAIL_CODE_TRIES, 'account.profile.code'));
  };
}

export function cancelEmail(deps: AccountDeps) {
  return async function cancelEmail(ctx: AccountContext) {
    await cancelEmailChange(deps.store, ctx.state.account.user);
    return backToAccount(ctx, 'email-kept');
  };
}
