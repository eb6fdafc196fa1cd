/**
 * Counts a password or code attempt against the rate limits before it is checked. Returns the refusal message
 * to show (with the limit that refused and the wait, for pages that word it their own way), or nothing when
 * the attempt may go ahead.
 */
import type { LimitKind } from '../domain/rate-limits.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { waitText } from './pages.js';

export interface AttemptOutcome {
  refused?: string;
  kind?: LimitKind;
  /** "14 minutes" */
  wait?: string;
}

export async function countAttempt(ctx: InteractionContext, deps: SignInDeps, keys: Array<[LimitKind, string]>): Promise<AttemptOutcome> {
  const outcome = await deps.services.limits.attempt([['ip', ctx.ip], ...keys]);
  if (outcome.allowed) return {};
  const wait = waitText(outcome.retryAfterSeconds);
  const refused = (message: string): AttemptOutcome => ({ refused: message, kind: outcome.kind, wait });
  switch (outcome.kind) {
    case 'account': return refused(`Too many failed sign-in attempts for this account. Try again in ${wait}.`);
    case 'account_total': return refused(`This account has had too many failed sign-in attempts. Try again in ${wait}.`);
    case 'ip': return refused(`Too many attempts from your network. Try again in ${wait}.`);
    default: return refused('Too many attempts. Go back to the application and sign in again.');
  }
}
