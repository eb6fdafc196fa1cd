/**
 * POST …/setup: the mailed code plus a new password twice. The password is checked against the policy first
 * (a typo there does not cost a try); then the code, counted per interaction, per account (one budget with the
 * reset page's codes), per IP and by the code's own 5 tries. Success clears the account's code count, sets the
 * password, marks the e-mail verified and continues the same sign-in; like every credential change it ends the
 * user's sessions and mails a notice (setPasswordFromCode decides, not the page).
 */
import { checkSetupCode, newPasswordProblems, SETUP_CODE_TRIES, userOfSetupCode } from '../domain/password-setup.js';
import { setPasswordFromCode } from '../domain/password-reset.js';
import { chooseLocale } from '../i18n/choose-locale.js';
import { userKey } from '../domain/rate-limits.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { countAttempt, countFailure } from './count-attempt.js';
import { restart, renderSetupPage } from './pages.js';
import { continueAfterNewPassword } from './continue-after-reset.js';
import { codeProblemMessage } from '../pages/code-problem.js';

export function submitSetup(deps: SignInDeps) {
  return async function submitSetup(ctx: InteractionContext) {
    const { uid } = ctx.state.interaction.details;
    const { store, settings } = deps;
    const user = await userOfSetupCode(store, uid);
    if (!user) throw restart(ctx, 'sign_in.restart.page_expired');
    const min = settings.passwords.min_length;

    const password = String(ctx.request.body?.password ?? '');
    const problems = newPasswordProblems(password, String(ctx.request.body?.confirmation ?? ''), user.email, settings.passwords);
    if (problems.length) return renderSetupPage(ctx, user.email, min, problems, 400);

    const limited = await countAttempt(ctx, deps, [
      ['interaction', `setup:${uid}`],
      ['code_guesses', userKey(user)],
    ]);
    if (limited.refused) return renderSetupPage(ctx, user.email, min, limited.refused, 429);

    const check = await checkSetupCode(store, uid, String(ctx.request.body?.code ?? '').replace(/\s/g, ''), settings.secrets.key);
    if (!check.ok) {
      await countFailure(ctx, deps);
      return renderSetupPage(ctx, user.email, min, codeProblemMessage(check, SETUP_CODE_TRIES, 'sign_in.setup.code'), 400);
    }
    await deps.services.limits.reset('code_guesses', userKey(user));
    const { user: updated } = await setPasswordFromCode(store, deps.services.sendMail, {
      userId: check.userId,
      password,
      policy: settings.passwords,
      appName: ctx.state.interaction.entry.app.name,
      locale: chooseLocale(ctx),
    });
    return continueAfterNewPassword(ctx, deps, updated);
  };
}
