/**
 * Counts a password or code attempt against the rate limits before it is checked. Returns the refusal message
 * to show (with the limit that refused and the wait, for pages that word it their own way), or nothing when
 * the attempt may go ahead.
 *
 * The per-IP limit is only *checked* here for passwords, codes and passkeys: it counts failures
 * (`countFailure`), so an office behind one NAT address signs in freely while its passwords are right. The
 * per-account and per-sign-in counters still count every attempt first. Mails (`ip: 'always'`) count per IP
 * whatever happens next: each one costs someone's inbox.
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

export async function countAttempt(
  ctx: InteractionContext,
  deps: SignInDeps,
  keys: Array<[LimitKind, string]>,
  options: { ip: 'on-failure' | 'always' } = { ip: 'on-failure' },
): Promise<AttemptOutcome> {
  const { limits } = deps.services;
  const byIp = options.ip === 'always' ? await limits.attempt([['ip', ctx.ip]]) : await limits.check([['ip', ctx.ip]]);
  const outcome = byIp.allowed ? await limits.attempt(keys) : byIp;
  if (outcome.allowed) return {};
  const wait = waitText(outcome.retryAfterSeconds);
  const refused = (message: string): AttemptOutcome => ({ refused: message, kind: outcome.kind, wait });
  switch (outcome.kind) {
    case 'account':
      return refused(`Too many failed sign-in attempts for this account. Try again in ${wait}.`);
    case 'account_total':
      return refused(`This account has had too many failed sign-in attempts. Try again in ${wait}.`);
    case 'ip':
      return refused(`Too many attempts from your network. Try again in ${wait}.`);
    default:
      return refused('Too many attempts. Go back to the application and sign in again.');
  }
}

/** A wrong password, code or passkey: counted against the client's address. */
export async function countFailure(ctx: InteractionContext, deps: SignInDeps): Promise<void> {
  await deps.services.limits.attempt([['ip', ctx.ip]]);
}
