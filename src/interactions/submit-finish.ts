/** POST …/finish: after the recovery codes were shown, completes the sign-in the enrolment verified. */
import type { SignInDeps } from './deps.js';
import type { InteractionContext } from './state.js';
import { loadTicketUser } from './load-ticket-user.js';
import { completeSignIn } from './continue-sign-in.js';

export function submitFinish(deps: SignInDeps) {
  return async function submitFinish(ctx: InteractionContext) {
    const loaded = await loadTicketUser(ctx, deps, 'done');
    if (!loaded) return;
    return completeSignIn(ctx, deps, loaded.user, loaded.ticket.amr);
  };
}
