/**
 * Counts a password, code or passkey attempt against the rate limits before it is checked. Returns the refusal
 * message to show (with the limit that refused and the wait, for pages that word it their own way), or nothing
 * when the attempt may go ahead.
 *
 * The per-IP limit is only *checked* here for passwords, codes and passkeys: it counts failures
 * (`countFailure`), so an office behind one NAT address signs in freely while its passwords are right. The
 * per-account and per-sign-in counters still count every attempt first. Mails (`ip: 'always'`) count per IP
 * whatever happens next: each one costs someone's inbox. `unlessOver` names counters that must have room left
 * without being counted (no code is mailed for an account whose code guesses are used up).
 */
import type { LimitKind } from '../domain/rate-limits.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { waitText } from '../pages/wait-text.js';

export interface AttemptOutcome {
  refused?: string;
  kind?: LimitKind;
  /** "14 minutes" */
  wait?: string;
}

type Keys = Array<[LimitKind, string]>;

export async function countAttempt(
  ctx: InteractionContext,
  deps: SignInDeps,
  keys: Keys,
  options: { ip?: 'on-failure' | 'always'; unlessOver?: Keys } = {},
): Promise<AttemptOutcome> {
  const { limits } = deps.services;
  let outcome = options.ip === 'always' ? await limits.attempt([['ip', ctx.ip]]) : await limits.check([['ip', ctx.ip]]);
  if (outcome.allowed && options.unlessOver) outcome = await limits.check(options.unlessOver);
  if (outcome.allowed) outcome = await limits.attempt(keys);
  if (outcome.allowed) return {};
  const wait = waitText(outcome.retryAfterSeconds);
  return { refused: refusalText(outcome.kind, wait), kind: outcome.kind, wait };
}

/** What the person reads when `kind` refuses them; every address gets the same words, known or not. */
function refusalText(kind: LimitKind, wait: string): string {
  switch (kind) {
    case 'account':
      return `Too many failed sign-in attempts for this account. Try again in ${wait}.`;
    case 'account_total':
      return `This account has had too many failed sign-in attempts. Try again in ${wait}.`;
    case 'code_mails':
      return `We have sent as many codes as we can for now. Look for one we already sent (check your spam folder too), or try again in ${wait}.`;
    case 'code_guesses':
      return `Too many wrong codes have been entered for this account. Try again in ${wait}.`;
    case 'second_factor':
      return `Too many failed verification attempts for this account. Try again in ${wait}.`;
    case 'ip':
      return `Too many attempts from your network. Try again in ${wait}.`;
    default:
      return 'Too many attempts. Go back to the application and sign in again.';
  }
}

/** A wrong password, code or passkey: counted against the client's address. */
export async function countFailure(ctx: InteractionContext, deps: SignInDeps): Promise<void> {
  await deps.services.limits.attempt([['ip', ctx.ip]]);
}
