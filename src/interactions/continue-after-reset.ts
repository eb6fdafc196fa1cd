/**
 * After a password was set by mailed code: continues the same sign-in (second factor, enrolment, access group:
 * continue-sign-in.ts). Setting it ended every session of the user (domain/credential-changes.ts), this browser's
 * too when it was signed in as them; the engine refuses to resume an interaction tied to a session that is gone,
 * so the interaction lets go of it first and the sign-in ends in a fresh session.
 */
import type { UserRow } from '../store/contract.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { continueSignIn } from './continue-sign-in.js';

export async function continueAfterNewPassword(ctx: InteractionContext, deps: SignInDeps, user: UserRow) {
  const { details } = ctx.state.interaction;
  if (details.session?.accountId === user.uuid) {
    details.session = undefined;
    await details.save(details.exp - Math.floor(Date.now() / 1000));
  }
  return continueSignIn(ctx, deps, user, ['pwd']);
}
