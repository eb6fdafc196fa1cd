/**
 * After the first factor (password, or a password just set, or an upstream identity provider): the second factor
 * when the user has TOTP or a passkey, enrolment when the application requires MFA and the user has neither, else
 * finish. Finishing checks the application's access group (spec §5) last, so nothing about membership shows before
 * both factors. A pending link to an upstream identity (docs/federation.md) is made once the account is proven: after
 * its second factor when it has one, else after its password.
 */
import type { InteractionResults } from 'oidc-provider';
import type { SecondFactors, UserRow } from '../store/contract.js';
import { userAllowedIn } from '../domain/applications.js';
import { recordSignIn } from '../domain/users.js';
import { signIns } from '../observability/metrics.js';
import { otpauthUrl, pendingTotpSecret } from '../domain/totp.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { renderEnrolPage, renderMfaPage } from './pages.js';
import { audit, auditEvent, currentActor } from '../domain/audit.js';
import { LinkConflict, linkSource, type PendingLink } from '../domain/source-links.js';
import { syncUpstreamGroups } from '../domain/upstream-groups.js';
import { PageError } from '../errors.js';
import type { Text } from '../i18n/messages.js';

/**
 * `factors`: the user's second factors when the caller has read them already (with the password hash). `link`: an
 * upstream identity to link once the account is proven (carried through the second-factor page by its ticket).
 */
export async function continueSignIn(
  ctx: InteractionContext,
  deps: SignInDeps,
  user: UserRow,
  amr: string[],
  factors?: SecondFactors,
  link?: PendingLink,
) {
  const { uid } = ctx.state.interaction.details;
  const has = factors ?? (await deps.store.credentials.secondFactors(user.id));
  if (has.totp || has.passkey)
    return renderMfaPage(ctx, deps.tickets.sign(uid, { user: user.uuid, stage: 'mfa', amr, ...(link ? { link } : {}) }), has);
  // Nothing more to prove: the account has no second factor (enrolment, if due, comes after the link).
  if (link) await linkProvenAccount(ctx, deps, user, link);
  if (ctx.state.interaction.entry.app.require_mfa) return showEnrolment(ctx, deps, user, amr, true);
  return completeSignIn(ctx, deps, user, amr);
}

/** Links the proven account to the upstream identity; one linked to someone else (meanwhile) ends on a page that says so. */
async function linkProvenAccount(ctx: InteractionContext, deps: SignInDeps, user: UserRow, link: PendingLink): Promise<void> {
  try {
    await linkSource(deps.store, user, link, 'proof');
    const source = deps.settings.sources.find((candidate) => candidate.slug === link.source);
    if (source && link.groups) await syncUpstreamGroups(deps.store, source, user, link.groups, deps.settings.applications);
  } catch (error) {
    if (!(error instanceof LinkConflict)) throw error;
    throw new PageError(
      409,
      {
        title: 'sign_in.link_conflict.title',
        heading: 'sign_in.link_conflict.heading',
        message: error.reason === 'source_taken' ? 'sign_in.link_conflict.source_taken' : 'sign_in.link_conflict.identity_taken',
        link: { href: ctx.state.interaction.base, label: 'sign_in.another_way' },
      },
      error,
    );
  }
}

/** The second-factor page again (after a wrong code or passkey), offering what the user has. */
export async function showSecondFactor(
  ctx: InteractionContext,
  deps: SignInDeps,
  user: UserRow,
  ticket: string,
  error: string | Text,
  status: number,
) {
  return renderMfaPage(ctx, ticket, await deps.store.credentials.secondFactors(user.id), error, status);
}

/** The enrolment page: a new secret when `fresh`, else the pending one again (after a wrong code). */
export async function showEnrolment(
  ctx: InteractionContext,
  deps: SignInDeps,
  user: UserRow,
  amr: string[],
  fresh: boolean,
  error?: string | Text,
) {
  const { uid } = ctx.state.interaction.details;
  const secret = await pendingTotpSecret(deps.store, user, deps.settings.secrets.key, fresh);
  // Confirmed meanwhile (another tab): ask for a code like any enrolled user.
  if (!secret) return renderMfaPage(ctx, deps.tickets.sign(uid, { user: user.uuid, stage: 'mfa', amr }), { totp: true, passkey: false });
  const issuer = new URL(deps.settings.issuer.base_url).host;
  const ticket = deps.tickets.sign(uid, { user: user.uuid, stage: 'enrol', amr });
  return renderEnrolPage(ctx, ticket, secret, otpauthUrl(secret, user.email, issuer), error, error ? 400 : 200);
}

/** `link`: an upstream identity to link, now that the account's second factor proved it too. */
export async function completeSignIn(ctx: InteractionContext, deps: SignInDeps, user: UserRow, amr: string[], link?: PendingLink) {
  const { app } = ctx.state.interaction.entry;
  if (link) await linkProvenAccount(ctx, deps, user, link);
  const method = amr.join('+');
  const actor = { ...currentActor(), type: 'user' as const, id: user.uuid };
  // The same rule and read as every later token use: the replica then has the user kept for the code exchange.
  if (!(await userAllowedIn(deps.store, app, user.uuid)).allowed) {
    signIns.inc({ outcome: 'denied', method });
    await audit(deps.store, 'sign_in.denied', { user: user.uuid, app: app.slug, actor, details: { method: amr, reason: 'access_group' } });
    return finishInteraction(ctx, { error: 'access_denied', error_description: 'you are not allowed to use this application' });
  }
  await recordSignIn(
    deps.store,
    user.id,
    auditEvent('sign_in.succeeded', { user: user.uuid, app: app.slug, actor, details: { method: amr } }),
  );
  signIns.inc({ outcome: 'success', method });
  return finishInteraction(ctx, { login: { accountId: user.uuid, amr, remember: true } });
}

/**
 * Hands the result back to the engine and sends the browser on to the authorization resume URL. The engine reads
 * the interaction again first: one that a resume ended meanwhile (while bcrypt ran) stays ended.
 */
export async function finishInteraction(ctx: InteractionContext, result: InteractionResults): Promise<void> {
  const { provider } = ctx.state.interaction.entry;
  const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
  ctx.status = 303;
  ctx.redirect(to);
}
