/** Hands the result back to the engine and sends the browser on to the authorization resume URL. */
import type { InteractionResults } from 'oidc-provider';
import type { InteractionContext } from './state.js';

export async function finishInteraction(ctx: InteractionContext, result: InteractionResults): Promise<void> {
  const { provider } = ctx.state.interaction.entry;
  const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
  ctx.status = 303;
  ctx.redirect(to);
}
