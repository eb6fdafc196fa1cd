/**
 * POST …/password (and POST …/email with a password filled in): looks the address up (one cheap statement),
 * counts the attempt by its account (or, for an address without one, by the form the database compared) and by
 * account and client address, then checks the password (bcrypt) — the same work for known and unknown
 * addresses. Then the second factor, or finish. The failure message is the same for every wrong e-mail/password
 * combination, and a locked account is refused without looking at the password: the lock is a wait with a stated
 * end, per address, so nobody can lock a user out from everywhere for good.
 */
import { checkCredentials, lookUpAddress } from '../domain/passwords.js';
import { accountKey } from '../domain/rate-limits.js';
import type { AddressLookup } from '../store/contract.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { renderPasswordPage } from './pages.js';
import { countAttempt, countFailure } from './count-attempt.js';
import { continueSignIn } from './continue-sign-in.js';
import { signIns } from '../observability/metrics.js';
import { audit } from '../domain/audit.js';

/** A catalogue key (locales/en/sign-in.json). */
export const SIGN_IN_FAILED = 'sign_in.errors.wrong_password';

export function submitPassword(deps: SignInDeps) {
  return async function submitPassword(ctx: InteractionContext) {
    const email = String(ctx.request.body?.email ?? '').trim();
    return passwordAttempt(ctx, deps, email, String(ctx.request.body?.password ?? ''));
  };
}

/**
 * One password attempt, from the password page or from the first page when both fields were filled in (`read`:
 * that page has looked the e-mail up already).
 */
export async function passwordAttempt(ctx: InteractionContext, deps: SignInDeps, email: string, password: string, read?: AddressLookup) {
  const lookup = read ?? (await lookUpAddress(deps.store, email));
  // Per account from this address (a lock here locks out only this address), and from every address.
  const key = accountKey(lookup);
  const fromHere = `${key}|${ctx.ip}`;
  const limited = await countAttempt(ctx, deps, [
    ['account', fromHere],
    ['account_total', key],
  ]);
  if (limited.refused) return renderPasswordPage(ctx, email, limited.refused, 429);

  const signedIn = await checkCredentials(lookup.record, password, deps.settings.passwords.bcrypt_cost);
  if (!signedIn) {
    await countFailure(ctx, deps);
    signIns.inc({ outcome: 'failure', method: 'pwd' });
    // The identifier as typed, and the account the lookup found for it, if any (no other lookup: an unknown e-mail
    // must cost the same time as a known one). The trail is the operator's: naming the user enumerates nothing.
    await audit(deps.store, 'sign_in.failed', {
      user: lookup.record?.user.uuid,
      app: ctx.state.interaction.entry.app.slug,
      details: { step: 'pwd', email: email.slice(0, 254) },
    });
    return renderPasswordPage(ctx, email, SIGN_IN_FAILED, 400);
  }
  await Promise.all([deps.services.limits.reset('account', fromHere), deps.services.limits.reset('account_total', key)]);
  return continueSignIn(ctx, deps, signedIn.user, ['pwd'], signedIn.secondFactors);
}
