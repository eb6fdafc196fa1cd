/** The user a stage ticket names, when the ticket is genuine and the user still active; else a restart page. */
import type { UserRow } from '../store/contract.js';
import type { SignInDeps } from './deps.js';
import type { InteractionContext } from './state.js';
import type { Stage, Ticket } from './tickets.js';
import { renderRestartPage } from './credential-pages.js';

export async function loadTicketUser(ctx: InteractionContext, deps: SignInDeps, stage: Stage): Promise<{ ticket: Ticket; user: UserRow } | undefined> {
  const ticket = deps.tickets.verify(ctx.state.interaction.details.uid, ctx.request.body?.ticket, stage);
  const user = ticket ? await deps.store.credentials.findByUuid(ticket.user) : undefined;
  if (!ticket || !user?.is_active) {
    renderRestartPage(ctx, 'This sign-in step has expired. Go back to the application and sign in again.');
    return undefined;
  }
  return { ticket, user };
}
