/**
 * `require_mfa` holds inside a single sign-on session too: an application that requires a second factor asks for a
 * sign-in when the browser's session was made without one (a password alone, at an application that did not require
 * it). The engine's login prompt gains a check; with prompt=none the answer is login_required. A sign-in that has
 * just happened in this request is taken as it is: the sign-in pages already asked for the factor.
 */
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type { ApplicationSettings } from '../settings/schema.js';
import { hasSecondFactor } from '../domain/second-factors.js';

export function interactionPolicyFor(app: ApplicationSettings) {
  const policy = interactionPolicy.base();
  if (!app.require_mfa) return policy;
  const { Check } = interactionPolicy;
  policy.get('login')!.checks.add(
    new Check('second_factor', 'This application requires a second factor', 'login_required', (ctx: KoaContextWithOIDC) => {
      const { session, result } = ctx.oidc;
      if (!session?.accountId || result?.login) return Check.NO_NEED_TO_PROMPT;
      return hasSecondFactor((session as unknown as { amr?: string[] }).amr) ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
    }),
  );
  return policy;
}
