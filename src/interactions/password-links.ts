/**
 * The one-time links that lead to a page where a person chooses a password: an administrator's recovery link
 * (GET/POST /if/recovery/{token}/, POST /users/{pk}/recovery/) and an invitation (/if/invitation/{token}/,
 * POST /users/{pk}/invite/). Opening a link only shows the form (mail scanners prefetch links); setting the password
 * spends it, ends the user's sessions everywhere and mails a notice (credential-changes.ts).
 */
import type { Context } from 'koa';
import { redeemLink, userOfLink, type LinkPurpose } from '../domain/password-setup.js';
import { chooseLocale } from '../i18n/choose-locale.js';
import { PageError, ValidationError } from '../errors.js';
import { newPasswordProblems } from '../domain/password-setup.js';
import type { SignInDeps } from './state.js';
import type { CsrfTokens } from '../http/forms.js';
import { renderPage } from '../pages/render-page.js';
import { text, type Message, type Text } from '../i18n/messages.js';

type LinkContext = Context & { params: Record<string, string>; request: { body?: Record<string, unknown> } };

/** What differs between the two links. */
interface LinkKind {
  path: 'recovery' | 'invitation';
  purpose: LinkPurpose;
  /** The page's title and heading: a catalogue key. */
  title: string;
  expired(deps: SignInDeps): PageError;
  done(ctx: LinkContext, deps: SignInDeps): void;
}

export const recoveryLink: LinkKind = {
  path: 'recovery',
  purpose: 'recovery-link',
  title: 'sign_in.recovery_link.title',
  expired: () =>
    new PageError(404, {
      title: 'sign_in.recovery_link.expired.title',
      heading: 'sign_in.recovery_link.expired.heading',
      message: 'sign_in.recovery_link.expired.message',
    }),
  done: (ctx) =>
    renderPage(ctx, 'message', {
      title: 'sign_in.recovery_link.done.title',
      heading: 'sign_in.recovery_link.done.heading',
      message: 'sign_in.recovery_link.done.message',
    }),
};

export const invitationLink: LinkKind = {
  path: 'invitation',
  purpose: 'invitation',
  title: 'sign_in.invitation.title',
  expired: ({ settings }) =>
    new PageError(404, {
      title: 'sign_in.invitation.expired.title',
      heading: 'sign_in.invitation.expired.heading',
      message: text('sign_in.invitation.expired.message', { contact: settings.invitations.contact }),
    }),
  done(ctx, { settings }) {
    if (settings.invitations.redirect) return ctx.redirect(settings.invitations.redirect);
    renderPage(ctx, 'message', {
      title: 'sign_in.invitation.done.title',
      heading: 'sign_in.invitation.done.heading',
      message: 'sign_in.invitation.done.message',
      link: { href: '/welcome/', label: 'sign_in.continue' },
    });
  },
};

function form(ctx: LinkContext, kind: LinkKind, deps: SignInDeps, csrf: CsrfTokens, email: string, error?: Message, status = 200) {
  const token = ctx.params.token!;
  renderPage(
    ctx,
    'recovery',
    {
      title: kind.title,
      heading: kind.title,
      action: `/if/${kind.path}/${token}/`,
      csrf: csrf.tokenFor(`${kind.path}:${token}`),
      email,
      minLength: deps.settings.passwords.min_length,
      error,
    },
    status,
  );
}

/** The active user a live link of this kind belongs to: a deactivated user's link shows as expired. */
async function activeUserOf(kind: LinkKind, deps: SignInDeps, token: string) {
  const user = await userOfLink(deps.store, kind.purpose, token, deps.settings.secrets.key);
  return user?.is_active ? user : undefined;
}

export function showPasswordLink(kind: LinkKind, deps: SignInDeps, csrf: CsrfTokens) {
  return async function showPasswordLink(ctx: LinkContext) {
    const user = await activeUserOf(kind, deps, ctx.params.token!);
    if (!user) throw kind.expired(deps);
    return form(ctx, kind, deps, csrf, user.email);
  };
}

export function submitPasswordLink(kind: LinkKind, deps: SignInDeps, csrf: CsrfTokens) {
  return async function submitPasswordLink(ctx: LinkContext) {
    const token = ctx.params.token!;
    const user = await activeUserOf(kind, deps, token);
    if (!user) throw kind.expired(deps);
    if (!csrf.isValid(`${kind.path}:${token}`, ctx.request.body?.csrf))
      return form(ctx, kind, deps, csrf, user.email, 'sign_in.password_link.form_expired', 403);
    // The policy's words in the reader's language (redeemLink checks again, for every other caller).
    const password = String(ctx.request.body?.password ?? '');
    const problems = newPasswordProblems(password, String(ctx.request.body?.confirmation ?? ''), user.email, deps.settings.passwords);
    if (problems.length) return form(ctx, kind, deps, csrf, user.email, problems, 400);
    try {
      const done = await redeemLink(deps.store, deps.services.sendMail, kind.purpose, {
        token,
        password: String(ctx.request.body?.password ?? ''),
        confirmation: String(ctx.request.body?.confirmation ?? ''),
        key: deps.settings.secrets.key,
        policy: deps.settings.passwords,
        locale: chooseLocale(ctx),
      });
      if (!done) throw kind.expired(deps);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return form(ctx, kind, deps, csrf, user.email, Object.values(error.fields).flat().join(' '), 400);
    }
    return kind.done(ctx, deps);
  };
}
