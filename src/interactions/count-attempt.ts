/**
 * Counts a password or code attempt against the rate limits before it is checked. Returns the refusal message
 * to show, or nothing when the attempt may go ahead.
 */
import type { LimitKind } from '../domain/rate-limits.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { waitText } from './pages.js';

export async function countAttempt(ctx: InteractionContext, deps: SignInDeps, keys: Array<[LimitKind, string]>): Promise<{ refused?: string }> {
  const outcome = await deps.services.limits.attempt([['ip', ctx.ip], ...keys]);
  if (outcome.allowed) return {};
  const wait = waitText(outcome.retryAfterSeconds);
  switch (outcome.kind) {
    case 'account': return { refused: `Too many failed sign-in attempts for this account. Try again in ${wait}.` };
    case 'account_total': return { refused: `This account has had too many failed sign-in attempts. Try again in ${wait}.` };
    case 'ip': return { refused: `Too many attempts from your network. Try again in ${wait}.` };
    default: return { refused: 'Too many attempts. Go back to the application and sign in again.' };
  }
}
