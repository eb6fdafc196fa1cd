/**
 * GET/POST /if/recovery/{token}/: the one-time link an administrator creates (POST /users/{pk}/recovery/).
 * Opening it only shows the form (mail scanners prefetch links); setting the password spends it, ends the
 * user's sessions everywhere and mails a notice.
 */
import type { Context } from 'koa';
import { redeemRecoveryLink, userOfRecoveryLink } from '../domain/password-setup.js';
import { PageError, ValidationError } from '../errors.js';
import type { SignInDeps } from './state.js';
import type { CsrfTokens } from '../http/forms.js';
import { renderPage } from '../pages/render-page.js';

type RecoveryContext = Context & { params: Record<string, string>; request: { body?: Record<string, unknown> } };

const expired = () =>
  new PageError(404, {
    title: 'Link expired',
    heading: 'This link is no longer valid',
    message: 'It was used already or is more than 24 hours old. Ask your administrator for a new one.',
  });

function form(ctx: RecoveryContext, deps: SignInDeps, csrf: CsrfTokens, email: string, error?: string, status = 200) {
  const token = ctx.params.token!;
  renderPage(
    ctx,
    'recovery',
    {
      title: 'Choose a new password',
      action: `/if/recovery/${token}/`,
      csrf: csrf.tokenFor(`recovery:${token}`),
      email,
      minLength: deps.settings.passwords.min_length,
      error,
    },
    status,
  );
}

export function showRecoveryLink(deps: SignInDeps, csrf: CsrfTokens) {
  return async function showRecoveryLink(ctx: RecoveryContext) {
    const user = await userOfRecoveryLink(deps.store, ctx.params.token!, deps.settings.secrets.key);
    if (!user?.is_active) throw expired();
    return form(ctx, deps, csrf, user.email);
  };
}

export function submitRecoveryLink(deps: SignInDeps, csrf: CsrfTokens) {
  return async function submitRecoveryLink(ctx: RecoveryContext) {
    const token = ctx.params.token!;
    const user = await userOfRecoveryLink(deps.store, token, deps.settings.secrets.key);
    if (!user?.is_active) throw expired();
    if (!csrf.isValid(`recovery:${token}`, ctx.request.body?.csrf))
      return form(ctx, deps, csrf, user.email, 'This form has expired; submit it again.', 403);
    try {
      const done = await redeemRecoveryLink(deps.store, deps.services.sendMail, {
        token,
        password: String(ctx.request.body?.password ?? ''),
        confirmation: String(ctx.request.body?.confirmation ?? ''),
        key: deps.settings.secrets.key,
        policy: deps.settings.passwords,
      });
      if (!done) throw expired();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return form(ctx, deps, csrf, user.email, Object.values(error.fields).flat().join(' '), 400);
    }
    return renderPage(ctx, 'message', {
      title: 'Password set',
      heading: 'Your password is set',
      message: 'You can now sign in to your application with your e-mail and the new password.',
    });
  };
}
