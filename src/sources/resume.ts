/**
 * GET /if/flow/{slug}/{uid}/source/{source}/continue: the callback's identity arrives at the interaction's own
 * page, and the account rules decide (domain/source-links.ts): a linked or new account goes on like a password
 * sign-in (second factor when the user has one, enrolment when the application requires MFA, the access group last)
 * with amr ["fed"]; an unlinked account with the address asks for its password first (submit-link.ts); refusals end
 * on a page that says why and leads back.
 */
import type { InteractionContext } from '../interactions/state.js';
import { PageError } from '../errors.js';
import { text, type Text } from '../i18n/messages.js';
import { restart, renderLinkPage } from '../interactions/pages.js';
import { completeSignIn, continueSignIn } from '../interactions/continue-sign-in.js';
import { hasPassword } from '../domain/passwords.js';
import { resolveUpstreamIdentity, type RefusalReason, type UpstreamIdentity } from '../domain/source-links.js';
import { syncUpstreamGroups } from '../domain/upstream-groups.js';
import type { SourceSettings } from '../settings/schema.js';
import { audit } from '../domain/audit.js';
import { signIns } from '../observability/metrics.js';
import { offeredUpstream } from './start.js';
import type { SourceDeps } from './state.js';

/** RFC 8176: federated authentication. */
export const FEDERATED = 'fed';

/** RFC 8176 methods by kind of factor: something known, and something held or inherent. */
const KNOWN = new Set(['pwd', 'pin', 'kba']);
const HELD_OR_INHERENT = new Set(['otp', 'hwk', 'swk', 'sms', 'tel', 'sc', 'fpt', 'face', 'iris', 'retina', 'vbm']);
/** acr values that mean more than one factor: phishing-resistant (OpenID EAP ACR) and PAPE's multi-factor. */
const MULTI_FACTOR_ACR = new Set(['phr', 'phrh', 'http://schemas.openid.net/pape/policies/2007/06/multi-factor']);

/**
 * Whether this sign-in takes the upstream's second factor as its own (`trust_upstream_mfa`): the upstream's ID token
 * says `mfa`, or names a factor of each kind (e.g. pwd and otp), or a multi-factor acr.
 */
export function upstreamSecondFactor(source: SourceSettings, identity: UpstreamIdentity): boolean {
  if (!source.trust_upstream_mfa) return false;
  const amr = identity.amr ?? [];
  if (amr.includes('mfa') || (identity.acr !== undefined && MULTI_FACTOR_ACR.has(identity.acr))) return true;
  return amr.some((method) => KNOWN.has(method)) && amr.some((method) => HELD_OR_INHERENT.has(method));
}

function refusal(ctx: InteractionContext, sourceName: string, reason: RefusalReason | 'no_password', email?: string): PageError {
  // `named`: whether the address is known ("The account for {email}"), else "this address".
  const message: Text = text(`sources.denied.${reason}`, { source: sourceName, named: email ? 'yes' : 'no', email: email ?? '' });
  return new PageError(403, {
    title: 'sign_in.error_title',
    heading: text('sources.denied.heading', { source: sourceName }),
    message,
    link: { href: ctx.state.interaction.base, label: 'sign_in.another_way' },
  });
}

export function resumeFromSource(deps: SourceDeps) {
  return async function resumeFromSource(ctx: InteractionContext & { params: Record<string, string> }) {
    const { details, entry, base } = ctx.state.interaction;
    const { source } = offeredUpstream(ctx, deps, ctx.params.source);
    const identity = deps.cookies.takeIdentity(ctx, base, details.uid, source.slug);
    if (!identity) throw restart(ctx, 'sign_in.restart.step_expired');
    const outcome = await resolveUpstreamIdentity(deps.store, source, identity, deps.settings.applications);
    switch (outcome.kind) {
      case 'signed_in':
        if (identity.groups) await syncUpstreamGroups(deps.store, source, outcome.user, identity.groups, deps.settings.applications);
        // The upstream's second factor stands for this service's: no second-factor page, require_mfa met.
        if (upstreamSecondFactor(source, identity)) return completeSignIn(ctx, deps, outcome.user, [FEDERATED, 'mfa']);
        return continueSignIn(ctx, deps, outcome.user, [FEDERATED]);
      case 'prove': {
        const { user } = outcome;
        if (!(await hasPassword(deps.store, user.id))) throw refusal(ctx, source.name, 'no_password', user.email);
        const ticket = deps.tickets.sign(details.uid, {
          user: user.uuid,
          stage: 'link',
          amr: [FEDERATED],
          link: { source: source.slug, subject: identity.subject, ...(identity.groups ? { groups: identity.groups } : {}) },
        });
        return renderLinkPage(ctx, ticket, user.email, source.name);
      }
      case 'refused':
        signIns.inc({ outcome: 'denied', method: FEDERATED });
        await audit(deps.store, 'sign_in.denied', {
          user: outcome.user?.uuid,
          app: entry.app.slug,
          details: { method: [FEDERATED], source: source.slug, reason: outcome.reason },
        });
        throw refusal(ctx, source.name, outcome.reason, outcome.user?.email);
    }
  };
}
