/**
 * POST …/reset: the code from the "forgot your password?" mail plus a new password twice. It answers alike
 * whether or not the address has an account: the address comes from the signed ticket of the previous page, is
 * looked up again (the same statement for every address) to count the try by its account — or by the form the
 * database compared — and every code that does not work gets the same words (no count of tries left, which an
 * address without an account could not have). Tries are limited as on the setup page, in one budget with it:
 * per account, by the code's own 5, per sign-in and per IP.
 */
import { checkSetupCode, newPasswordProblems } from '../domain/password-setup.js';
import { resetCodeId, setPasswordFromCode } from '../domain/password-reset.js';
import { chooseLocale } from '../i18n/choose-locale.js';
import { lookUpAddress } from '../domain/passwords.js';
import { accountKey, userKey } from '../domain/rate-limits.js';
import { PageError } from '../errors.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { countAttempt, countFailure } from './count-attempt.js';
import { renderResetPage, restart } from './pages.js';
import { continueAfterNewPassword } from './continue-after-reset.js';
import type { Message, Text } from '../i18n/messages.js';

/** A catalogue key (locales/en/sign-in.json). */
export const CODE_DID_NOT_WORK = 'sign_in.errors.code_did_not_work';

/** Setting the password failed (database, or the queue refused the notice): nothing changed, the code is spent. */
const notChanged = (ctx: InteractionContext, cause: unknown) =>
  new PageError(
    503,
    {
      title: 'sign_in.try_again_shortly',
      heading: 'sign_in.reset.not_changed.heading',
      message: 'sign_in.reset.not_changed.message',
      link: { href: `${ctx.state.interaction.base}forgot`, label: 'sign_in.reset.not_changed.new_code' },
    },
    cause,
  );

export function submitReset(deps: SignInDeps) {
  return async function submitReset(ctx: InteractionContext) {
    const { uid } = ctx.state.interaction.details;
    const { store, settings } = deps;
    const token = String(ctx.request.body?.ticket ?? '');
    const ticket = deps.tickets.verify(uid, token, 'reset');
    if (!ticket) throw restart(ctx, 'sign_in.restart.page_expired');
    const email = ticket.user;
    const again = (message: Message, status: number) => renderResetPage(ctx, email, token, settings.passwords.min_length, message, status);

    // A typo in the new password does not cost a try.
    const password = String(ctx.request.body?.password ?? '');
    const problems = newPasswordProblems(password, String(ctx.request.body?.confirmation ?? ''), email, settings.passwords);
    if (problems.length) return again(problems, 400);

    const key = accountKey(await lookUpAddress(store, email));
    const limited = await countAttempt(ctx, deps, [
      ['interaction', `setup:${uid}`],
      ['code_guesses', key],
    ]);
    if (limited.refused) return again(limited.refused, 429);

    // No code of this sign-in (an address without an account) fails like a wrong one, after the same query.
    const check = await checkSetupCode(
      store,
      resetCodeId(uid),
      String(ctx.request.body?.code ?? '').replace(/\s/g, ''),
      settings.secrets.key,
    );
    const user = check.ok ? await store.users.findById(check.userId) : undefined;
    if (!user?.is_active) {
      await countFailure(ctx, deps);
      return again(CODE_DID_NOT_WORK, 400);
    }

    let result;
    try {
      result = await setPasswordFromCode(store, deps.services.sendMail, {
        userId: user.id,
        password,
        policy: settings.passwords,
        appName: ctx.state.interaction.entry.app.name,
        locale: chooseLocale(ctx),
      });
    } catch (error) {
      throw notChanged(ctx, error); // the database or the mail queue (Unavailable), or a fault: nothing changed either way
    }
    // The mailbox is proven: earlier failed passwords and codes no longer hold the account.
    const { limits } = deps.services;
    const account = userKey(user);
    await Promise.all([
      limits.reset('account', `${account}|${ctx.ip}`),
      limits.reset('account_total', account),
      limits.reset('code_guesses', account),
    ]);
    return continueAfterNewPassword(ctx, deps, result.user);
  };
}
