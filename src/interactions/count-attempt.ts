/**
 * Counts a password or code attempt against the rate limits before it is checked. Returns a refusal message,
 * or 'unavailable' after rendering the "try again shortly" page when Redis does not answer (fail closed).
 */
import { RateLimitUnavailable, type LimitKind } from '../domain/rate-limits.js';
import type { SignInDeps } from './deps.js';
import type { InteractionContext } from './state.js';
import { renderUnavailablePage, waitText } from './credential-pages.js';

export async function countAttempt(
  ctx: InteractionContext, deps: SignInDeps, keys: Array<[LimitKind, string]>,
): Promise<{ refused?: string; unavailable?: true }> {
  try {
    const outcome = await deps.services.limits.attempt([['ip', ctx.ip], ...keys]);
    if (outcome.allowed) return {};
    const wait = waitText(outcome.retryAfterSeconds);
    if (outcome.kind === 'account') return { refused: `Too many failed sign-in attempts for this account. Try again in ${wait}.` };
    if (outcome.kind === 'ip') return { refused: `Too many attempts from your network. Try again in ${wait}.` };
    return { refused: 'Too many attempts. Go back to the application and sign in again.' };
  } catch (error) {
    if (!(error instanceof RateLimitUnavailable)) throw error;
    renderUnavailablePage(ctx);
    return { unavailable: true };
  }
}
