/**
 * Counts a password, code or passkey attempt against the rate limits before it is checked. Returns the refusal
 * message to show, a catalogue Text (with the limit that refused and the wait's values, for pages that word it their
 * own way), or nothing when the attempt may go ahead.
 *
 * The per-IP limit is only *checked* here for passwords, codes and passkeys: it counts failures
 * (`countFailure`), so an office behind one NAT address signs in freely while its passwords are right. The
 * per-account and per-sign-in counters still count every attempt first. Mails (`ip: 'always'`) count per IP
 * whatever happens next: each one costs someone's inbox. `unlessOver` names counters that must have room left
 * without being counted (no code is mailed for an account whose code guesses are used up).
 */
import type { LimitKind } from '../domain/rate-limits.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { waitValues } from '../pages/wait-text.js';
import { text, type Text } from '../i18n/messages.js';

export interface AttemptOutcome {
  refused?: Text;
  kind?: LimitKind;
  /** The wait, as the values of a sign_in.limits.* message: `{ wait: 14, unit: 'minute' }`. */
  wait?: ReturnType<typeof waitValues>;
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
  const wait = waitValues(outcome.retryAfterSeconds);
  return { refused: refusalText(outcome.kind, wait), kind: outcome.kind, wait };
}

/** What the person reads when `kind` refuses them; every address gets the same words, known or not. */
function refusalText(kind: LimitKind, wait: ReturnType<typeof waitValues>): Text {
  switch (kind) {
    case 'account':
    case 'account_total':
    case 'code_mails':
    case 'code_guesses':
    case 'second_factor':
    case 'ip':
      return text(`sign_in.limits.${kind}`, wait);
    default:
      return text('sign_in.limits.other');
  }
}

/** A wrong password, code or passkey: counted against the client's address. */
export async function countFailure(ctx: InteractionContext, deps: SignInDeps): Promise<void> {
  await deps.services.limits.attempt([['ip', ctx.ip]]);
}
