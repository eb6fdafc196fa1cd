/**
 * Finds the application and the engine's interaction for /if/flow/{slug}/{uid}/. The interaction comes
 * from the browser's interaction cookie; it must be the one named in the URL.
 */
import type { Next } from 'koa';
import { PageError, unavailableIn } from '../errors.js';
import type { CsrfTokens } from './forms.js';
import { interactionPath, type InteractionContext, type SignInApps } from './state.js';

/** No interaction cookie, another interaction's cookie, or an interaction the engine has forgotten. */
export const expired = (cause?: unknown) => new PageError(400, {
  title: 'Sign-in expired',
  heading: 'This sign-in page has expired',
  message: 'Go back to the application and sign in again.',
}, cause);

export function loadInteraction(apps: SignInApps, csrf: CsrfTokens) {
  return async function loadInteraction(ctx: InteractionContext & { params: Record<string, string> }, next: Next) {
    const entry = apps.bySlug.get(ctx.params.slug ?? '');
    if (!entry) throw expired();
    let details;
    try {
      details = await entry.provider.interactionDetails(ctx.req, ctx.res);
    } catch (error) {
      throw unavailableIn(error) ?? expired(error); // a database outage is not an expired sign-in
    }
    if (details.uid !== ctx.params.uid || details.params.client_id !== entry.app.client_id) throw expired();
    ctx.state.interaction = { entry, details, base: interactionPath(entry.app.slug, details.uid), csrf: csrf.tokenFor(details.uid) };
    return next();
  };
}
