/**
 * POST …/email: the first page, e-mail and an optional password (spec §1: "e-mail and password on the login page").
 * An active user without a password gets a setup code by e-mail and the setup page, whatever was typed as a password.
 * Everyone else — users with a password, unknown and inactive e-mails alike — goes on the same way after the same
 * single lookup, so the answer says nothing about them: with a password, it is checked at once (as on the password
 * page, counted the same); without one, the password page follows.
 */
import { lookUpAddress } from '../domain/passwords.js';
import { sendSetupCode } from '../domain/password-setup.js';
import { chooseLocale } from '../i18n/choose-locale.js';
import { userKey } from '../domain/rate-limits.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { renderEmailPage, renderPasswordPage, renderSetupPage, unavailable } from './pages.js';
import { countAttempt } from './count-attempt.js';
import { passwordAttempt } from './submit-password.js';

/** What the e-mail fields accept (the forgot-password page too). */
export const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function submitEmail(deps: SignInDeps) {
  return async function submitEmail(ctx: InteractionContext) {
    const email = String(ctx.request.body?.email ?? '').trim();
    if (!EMAIL.test(email) || email.length > 254) return renderEmailPage(ctx, email, 'sign_in.errors.invalid_email', 400);
    const password = String(ctx.request.body?.password ?? '');
    const lookup = await lookUpAddress(deps.store, email);
    const { record } = lookup;
    if (!record?.user.is_active || record.passwordHash) {
      return password ? passwordAttempt(ctx, deps, email, password, lookup) : renderPasswordPage(ctx, email);
    }
    const { user } = record;

    // Each code is a mail: counted per interaction, per IP and per account (one budget with the reset codes), so
    // the page cannot flood a mailbox; and none is mailed while the account's code guesses are used up.
    const { details, entry } = ctx.state.interaction;
    const limited = await countAttempt(
      ctx,
      deps,
      [
        ['interaction', `mail:${details.uid}`],
        ['code_mails', userKey(user)],
      ],
      { ip: 'always', unlessOver: [['code_guesses', userKey(user)]] },
    );
    if (limited.refused) return renderEmailPage(ctx, email, limited.refused, 429);
    try {
      await sendSetupCode(deps.store, deps.services.sendMail, {
        id: details.uid,
        user,
        appName: entry.app.name,
        key: deps.settings.secrets.key,
        locale: chooseLocale(ctx),
      });
    } catch (error) {
      throw unavailable(ctx, error); // the mail queue (Redis) did not take the message
    }
    return renderSetupPage(ctx, user.email, deps.settings.passwords.min_length);
  };
}
