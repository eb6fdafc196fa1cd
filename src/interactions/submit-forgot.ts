/**
 * POST …/forgot: asks for a password-reset code. Whoever asks — an account with a password, one without, an
 * unknown or inactive address — gets the same "if an account exists, we sent a code" page after the same
 * steps; only an active account is mailed. Counted like the setup mails: per sign-in and per IP, and also per
 * address asked for (unknown ones too), so neither one page nor many sign-ins can flood a mailbox.
 */
import { findUserByEmail } from '../domain/users.js';
import { sendResetCode } from '../domain/password-reset.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { renderForgotPage, renderResetPage, unavailable } from './pages.js';
import { countAttempt } from './count-attempt.js';
import { EMAIL } from './submit-email.js';

export function submitForgot(deps: SignInDeps) {
  return async function submitForgot(ctx: InteractionContext) {
    const email = String(ctx.request.body?.email ?? '').trim();
    if (!EMAIL.test(email) || email.length > 254) return renderForgotPage(ctx, email, 'Enter a valid e-mail address.', 400);

    // Counted before anything is looked up; `mail:` is the setup mails' own per-sign-in counter.
    const { details, entry } = ctx.state.interaction;
    const limited = await countAttempt(
      ctx,
      deps,
      [
        ['interaction', `mail:${details.uid}`],
        ['interaction', `reset:${email}`],
      ],
      { ip: 'always' },
    );
    if (limited.refused) {
      const message =
        limited.kind === 'interaction'
          ? `We have sent as many codes as we can for now. Look for one we already sent (check your spam folder too), or try again in ${limited.wait}.`
          : limited.refused;
      return renderForgotPage(ctx, email, message, 429);
    }

    const user = await findUserByEmail(deps.store, email);
    try {
      await sendResetCode(deps.store, deps.services.sendMail, {
        interactionUid: details.uid,
        user,
        appName: entry.app.name,
        key: deps.settings.secrets.key,
      });
    } catch (error) {
      throw unavailable(ctx, error); // the mail queue (Redis) did not take the message
    }
    // The address as typed, signed: the next page shows it and checks the new password against it, untampered.
    const ticket = deps.tickets.sign(details.uid, { user: email, stage: 'reset', amr: [] });
    return renderResetPage(ctx, email, ticket, deps.settings.passwords.min_length);
  };
}
