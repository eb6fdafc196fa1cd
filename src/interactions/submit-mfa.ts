/**
 * POST …/mfa: the second factor. Six digits are a TOTP code (each time step works once); anything else is
 * tried as a recovery code (each works once). Attempts are counted before the check per account (whatever
 * sign-in or address they come from; over it they are refused unchecked), per interaction and, failed, per IP.
 * Success clears the account's count.
 */
import { verifyTotp } from '../domain/totp.js';
import { useRecoveryCode } from '../domain/recovery-codes.js';
import { userKey } from '../domain/rate-limits.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { countAttempt, countFailure } from './count-attempt.js';
import { loadTicketUser } from './load-ticket-user.js';
import { completeSignIn, showSecondFactor } from './continue-sign-in.js';
import { signIns } from '../observability/metrics.js';
import { audit } from '../domain/audit.js';

/** Catalogue keys (locales/en/sign-in.json). */
export const WRONG_CODE = 'sign_in.errors.wrong_code';
export const USED_CODE = 'sign_in.errors.used_code';

export function submitMfa(deps: SignInDeps) {
  return async function submitMfa(ctx: InteractionContext) {
    const { ticket, user } = await loadTicketUser(ctx, deps, 'mfa');
    const token = String(ctx.request.body?.ticket);
    const limited = await countAttempt(ctx, deps, [
      ['interaction', `mfa:${ctx.state.interaction.details.uid}`],
      ['second_factor', userKey(user)],
    ]);
    if (limited.refused) return showSecondFactor(ctx, deps, user, token, limited.refused, 429);
    const passed = async () => {
      await deps.services.limits.reset('second_factor', userKey(user));
      // A recovery code stands in for the one-time code: the same amr, ["pwd", "otp"] (docs/integrating.md).
      return completeSignIn(ctx, deps, user, [...ticket.amr, 'otp'], ticket.link);
    };

    const code = String(ctx.request.body?.code ?? '').replace(/\s/g, '');
    const key = deps.settings.secrets.key;
    if (/^\d{6}$/.test(code)) {
      const outcome = await verifyTotp(deps.store, user.id, code, key);
      if (outcome !== 'ok') {
        await countFailure(ctx, deps);
        signIns.inc({ outcome: 'failure', method: 'otp' });
        await audit(deps.store, 'sign_in.failed', {
          user: user.uuid,
          app: ctx.state.interaction.entry.app.slug,
          details: { step: 'otp', replayed: outcome === 'replayed' },
        });
        return showSecondFactor(ctx, deps, user, token, outcome === 'replayed' ? USED_CODE : WRONG_CODE, 400);
      }
      return passed();
    }
    if (!(await useRecoveryCode(deps.store, user.id, code, key))) {
      await countFailure(ctx, deps);
      signIns.inc({ outcome: 'failure', method: 'recovery_code' });
      await audit(deps.store, 'sign_in.failed', {
        user: user.uuid,
        app: ctx.state.interaction.entry.app.slug,
        details: { step: 'recovery_code' },
      });
      return showSecondFactor(ctx, deps, user, token, WRONG_CODE, 400);
    }
    return passed();
  };
}
