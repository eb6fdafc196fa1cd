/** POST …/finish: after the recovery codes were shown, completes the sign-in the enrolment verified. */
import type { InteractionContext, SignInDeps } from './state.js';
import { loadTicketUser } from './load-ticket-user.js';
import { completeSignIn } from './continue-sign-in.js';

export function submitFinish(deps: SignInDeps) {
  return async function submitFinish(ctx: InteractionContext) {
    const { ticket, user } = await loadTicketUser(ctx, deps, 'done');
    return completeSignIn(ctx, deps, user, ticket.amr);
  };
}
