/**
 * POST …/enrol: confirms the pending TOTP secret with a first code, then shows ten recovery codes once.
 * The code's time step is spent by the confirmation, so it cannot be replayed on the next page.
 */
import { enrolTotp } from '../domain/totp.js';
import { issueRecoveryCodes } from '../domain/recovery-codes.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { countAttempt, countFailure } from './count-attempt.js';
import { loadTicketUser } from './load-ticket-user.js';
import { renderRecoveryCodesPage } from './pages.js';
import { showEnrolment } from './continue-sign-in.js';
import { WRONG_CODE } from './submit-mfa.js';

export function submitEnrolment(deps: SignInDeps) {
  return async function submitEnrolment(ctx: InteractionContext) {
    const { ticket, user } = await loadTicketUser(ctx, deps, 'enrol');
    const limited = await countAttempt(ctx, deps, [['interaction', `mfa:${ctx.state.interaction.details.uid}`]]);
    if (limited.refused) return showEnrolment(ctx, deps, user, ticket.amr, false, limited.refused);

    const code = String(ctx.request.body?.code ?? '').replace(/\s/g, '');
    const key = deps.settings.secrets.key;
    if ((await enrolTotp(deps.store, user, code, key, ctx.state.interaction.entry.app.slug)) !== 'ok') {
      await countFailure(ctx, deps);
      return showEnrolment(ctx, deps, user, ticket.amr, false, WRONG_CODE);
    }
    const codes = await issueRecoveryCodes(deps.store, user.id, key);
    const done = deps.tickets.sign(ctx.state.interaction.details.uid, { user: user.uuid, stage: 'done', amr: [...ticket.amr, 'otp'] });
    return renderRecoveryCodesPage(ctx, done, codes);
  };
}
