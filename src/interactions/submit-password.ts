/**
 * POST …/password: counts the attempt (per IP and per e-mail) before checking anything, checks the
 * credentials, then goes on to the second factor or finishes. The failure message is the same for every
 * wrong e-mail/password combination, and a locked account is refused without looking at the password.
 */
import { checkCredentials } from '../domain/passwords.js';
import type { SignInDeps } from './deps.js';
import type { InteractionContext } from './state.js';
import { renderPasswordPage } from './show-sign-in.js';
import { countAttempt } from './count-attempt.js';
import { continueSignIn } from './continue-sign-in.js';

export const SIGN_IN_FAILED = 'Incorrect e-mail or password.';

export function submitPassword(deps: SignInDeps) {
  return async function submitPassword(ctx: InteractionContext) {
    const email = String(ctx.request.body?.email ?? '').trim();
    const password = String(ctx.request.body?.password ?? '');
    const limited = await countAttempt(ctx, deps, [['account', email]]);
    if (limited.unavailable) return;
    if (limited.refused) return renderPasswordPage(ctx, email, limited.refused, 429);

    const user = await checkCredentials(deps.store, email, password, deps.settings.passwords.bcrypt_cost);
    if (!user) return renderPasswordPage(ctx, email, SIGN_IN_FAILED, 400);
    await deps.services.limits.reset('account', email).catch(() => {}); // best effort: the window ends anyway
    return continueSignIn(ctx, deps, user, ['pwd']);
  };
}
