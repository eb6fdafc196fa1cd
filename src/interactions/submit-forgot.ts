/**
 * POST …/forgot: asks for a password-reset code. Whoever asks — an account with a password, one without, an
 * unknown or inactive address — gets the same "if an account exists, we sent a code" page after the same
 * steps; only an active account is mailed. Counted like the setup mails: per sign-in, per IP and per account
 * (one budget with the setup codes; an address without an account by the form the database compared), so
 * neither one page nor many sign-ins nor many spellings can flood a mailbox. No code is mailed while the account's
 * code guesses are used up: it could not be entered.
 */
import { lookUpAddress } from '../domain/passwords.js';
import { sendResetCode } from '../domain/password-reset.js';
import { chooseLocale } from '../i18n/choose-locale.js';
import { accountKey } from '../domain/rate-limits.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { renderForgotPage, renderResetPage, unavailable } from './pages.js';
import { countAttempt } from './count-attempt.js';
import { EMAIL } from './submit-email.js';
import { text } from '../i18n/messages.js';

export function submitForgot(deps: SignInDeps) {
  return async function submitForgot(ctx: InteractionContext) {
    const email = String(ctx.request.body?.email ?? '').trim();
    if (!EMAIL.test(email) || email.length > 254) return renderForgotPage(ctx, email, 'sign_in.errors.invalid_email', 400);

    // The lookup first (one cheap statement, for every address), then the counters by what it found.
    const lookup = await lookUpAddress(deps.store, email);
    const key = accountKey(lookup);
    const { details, entry } = ctx.state.interaction;
    const limited = await countAttempt(
      ctx,
      deps,
      [
        ['interaction', `mail:${details.uid}`],
        ['code_mails', key],
      ],
      { ip: 'always', unlessOver: [['code_guesses', key]] },
    );
    if (limited.refused) {
      // `mail:` is the setup mails' own per-sign-in counter: its refusal reads like the account's.
      const message = limited.kind === 'interaction' ? text('sign_in.limits.code_mails', limited.wait) : limited.refused;
      return renderForgotPage(ctx, email, message, 429);
    }

    try {
      await sendResetCode(deps.store, deps.services.sendMail, {
        interactionUid: details.uid,
        user: lookup.record?.user,
        appName: entry.app.name,
        key: deps.settings.secrets.key,
        locale: chooseLocale(ctx),
      });
    } catch (error) {
      throw unavailable(ctx, error); // the mail queue (Redis) did not take the message
    }
    // The address as typed, signed: the next page shows it and checks the new password against it, untampered.
    const ticket = deps.tickets.sign(details.uid, { user: email, stage: 'reset', amr: [] });
    return renderResetPage(ctx, email, ticket, deps.settings.passwords.min_length);
  };
}
