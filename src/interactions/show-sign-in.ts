/** GET /if/flow/{slug}/{uid}/: the first page of the sign-in (e-mail). */
import type { InteractionContext } from './state.js';
import { renderEmailPage } from './pages.js';
import { finishInteraction } from './continue-sign-in.js';

export async function showSignIn(ctx: InteractionContext) {
  const { details, entry } = ctx.state.interaction;
  if (details.prompt.name === 'login')
    return renderEmailPage(ctx, typeof details.params.login_hint === 'string' ? details.params.login_hint : '');
  // Not expected (loadExistingGrant grants first-party apps), but never leave the browser stranded on consent.
  const grant = new entry.provider.Grant({ clientId: entry.app.client_id, accountId: details.session!.accountId });
  grant.addOIDCScope(String(details.params.scope ?? ''));
  return finishInteraction(ctx, { consent: { grantId: await grant.save() } });
}
