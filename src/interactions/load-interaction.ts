/**
 * Finds the application and the engine's interaction for /if/flow/{slug}/{uid}/. The interaction comes
 * from the browser's interaction cookie; it must be the one named in the URL.
 */
import type { Next } from 'koa';
import type { ProviderSet } from '../oidc/providers.js';
import { interactionPath } from '../oidc/provider-config.js';
import type { CsrfTokens } from './csrf.js';
import { renderPage } from './render-page.js';
import type { InteractionContext } from './state.js';

function expiredPage(ctx: InteractionContext) {
  renderPage(ctx as never, 'error', {
    title: 'Sign-in expired',
    heading: 'This sign-in page has expired',
    message: 'Go back to the application and sign in again.',
  }, 400);
}

export function loadInteraction(providers: ProviderSet, csrf: CsrfTokens) {
  return async function loadInteraction(ctx: InteractionContext & { params: Record<string, string> }, next: Next) {
    const entry = providers.bySlug.get(ctx.params.slug ?? '');
    if (!entry) return expiredPage(ctx);
    let details;
    try {
      details = await entry.provider.interactionDetails(ctx.req, ctx.res);
    } catch {
      return expiredPage(ctx); // no interaction cookie, or the interaction expired
    }
    if (details.uid !== ctx.params.uid || details.params.client_id !== entry.app.client_id) return expiredPage(ctx);
    ctx.state.interaction = { entry, details, base: interactionPath(entry.app.slug, details.uid), csrf: csrf.tokenFor(details.uid) };
    return next();
  };
}
