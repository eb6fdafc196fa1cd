/** The user a stage ticket names, when the ticket is genuine and the user still active; else a "start again" page. */
import type { UserRow } from '../store/contract.js';
import { findUserByUuid } from '../domain/users.js';
import type { InteractionContext, SignInDeps } from './state.js';
import type { Stage, Ticket } from './tickets.js';
import { restart } from './pages.js';

export async function loadTicketUser(ctx: InteractionContext, deps: SignInDeps, stage: Stage): Promise<{ ticket: Ticket; user: UserRow }> {
  const ticket = deps.tickets.verify(ctx.state.interaction.details.uid, ctx.request.body?.ticket, stage);
  const user = ticket ? await findUserByUuid(deps.store, ticket.user) : undefined;
  if (!ticket || !user?.is_active) throw restart(ctx, 'sign_in.restart.step_expired');
  return { ticket, user };
}
