/**
 * The one-time links that lead to a page where a person chooses a password: an administrator's recovery link
 * (GET/POST /if/recovery/{token}/, POST /users/{pk}/recovery/) and an invitation (/if/invitation/{token}/,
 * POST /users/{pk}/invite/). Opening a link only shows the form (mail scanners prefetch links); setting the password
 * spends it, ends the user's sessions everywhere and mails a notice (credential-changes.ts).
 */
import type { Context } from 'koa';
import { redeemRecoveryLink, userOfRecoveryLink } from '../domain/password-setup.js';
import { acceptInvitation, userOfInvitation } from '../domain/invitations.js';
import type { Store, UserRow } from '../store/contract.js';
import type { SendMail } from '../domain/mail.js';
import type { PasswordPolicy } from '../domain/passwords.js';
import { PageError, ValidationError } from '../errors.js';
import type { SignInDeps } from './state.js';
import type { CsrfTokens } from '../http/forms.js';
import { renderPage } from '../pages/render-page.js';

type LinkContext = Context & { params: Record<string, string>; request: { body?: Record<string, unknown> } };

interface Redeem {
  token: string;
  password: string;
  confirmation: string;
  key: string;
  policy: PasswordPolicy;
}

/** What differs between the two links. */
interface LinkKind {
  path: 'recovery' | 'invitation';
  title: string;
  expired(deps: SignInDeps): PageError;
  findUser(store: Store, token: string, key: string): Promise<UserRow | undefined>;
  redeem(store: Store, sendMail: SendMail, input: Redeem): Promise<UserRow | undefined>;
  done(ctx: LinkContext, deps: SignInDeps): void;
}

export const recoveryLink: LinkKind = {
  path: 'recovery',
  title: 'Choose a new password',
  expired: () =>
    new PageError(404, {
      title: 'Link expired',
      heading: 'This link is no longer valid',
      message: 'It was used already or is more than 24 hours old. Ask your administrator for a new one.',
    }),
  findUser: async (store, token, key) => {
    const user = await userOfRecoveryLink(store, token, key);
    return user?.is_active ? user : undefined;
  },
  redeem: redeemRecoveryLink,
  done: (ctx) =>
    renderPage(ctx, 'message', {
      title: 'Password set',
      heading: 'Your password is set',
      message: 'You can now sign in to your application with your e-mail and the new password.',
    }),
};

export const invitationLink: LinkKind = {
  path: 'invitation',
  title: 'Welcome: choose your password',
  expired: ({ settings }) =>
    new PageError(404, {
      title: 'Invitation no longer valid',
      heading: 'This invitation is no longer valid',
      message: `It was used already, replaced by a newer one or has expired. Ask ${settings.invitations.contact} to send you a new one.`,
    }),
  findUser: (store, token, key) => userOfInvitation(store, token, key),
  redeem: acceptInvitation,
  done(ctx, { settings }) {
    if (settings.invitations.redirect) return ctx.redirect(settings.invitations.redirect);
    renderPage(ctx, 'message', {
      title: 'You are all set',
      heading: 'Your account is ready',
      message: 'Your password is set. Sign in to your applications with your e-mail address and this password.',
      link: { href: '/welcome/', label: 'Continue' },
    });
  },
};

function form(ctx: LinkContext, kind: LinkKind, deps: SignInDeps, csrf: CsrfTokens, email: string, error?: string, status = 200) {
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

export function showPasswordLink(kind: LinkKind, deps: SignInDeps, csrf: CsrfTokens) {
  return async function showPasswordLink(ctx: LinkContext) {
    const user = await kind.findUser(deps.store, ctx.params.token!, deps.settings.secrets.key);
    if (!user) throw kind.expired(deps);
    return form(ctx, kind, deps, csrf, user.email);
  };
}

export function submitPasswordLink(kind: LinkKind, deps: SignInDeps, csrf: CsrfTokens) {
  return async function submitPasswordLink(ctx: LinkContext) {
    const token = ctx.params.token!;
    const user = await kind.findUser(deps.store, token, deps.settings.secrets.key);
    if (!user) throw kind.expired(deps);
    if (!csrf.isValid(`${kind.path}:${token}`, ctx.request.body?.csrf))
      return form(ctx, kind, deps, csrf, user.email, 'This form has expired; submit it again.', 403);
    try {
      const done = await kind.redeem(deps.store, deps.services.sendMail, {
        token,
        password: String(ctx.request.body?.password ?? ''),
        confirmation: String(ctx.request.body?.confirmation ?? ''),
        key: deps.settings.secrets.key,
        policy: deps.settings.passwords,
      });
      if (!done) throw kind.expired(deps);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return form(ctx, kind, deps, csrf, user.email, Object.values(error.fields).flat().join(' '), 400);
    }
    return kind.done(ctx, deps);
  };
}
