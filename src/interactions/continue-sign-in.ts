/**
 * After the first factor (password, or a password just set): the second factor when the user has TOTP or a
 * passkey, enrolment when the application requires MFA and the user has neither, else finish. Finishing checks the
 * application's access group (spec §5) last, so nothing about membership shows before both factors.
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

/** `factors`: the user's second factors when the caller has read them already (with the password hash). */
export async function continueSignIn(ctx: InteractionContext, deps: SignInDeps, user: UserRow, amr: string[], factors?: SecondFactors) {
  const { uid } = ctx.state.interaction.details;
  const has = factors ?? (await deps.store.credentials.secondFactors(user.id));
  if (has.totp || has.passkey) return renderMfaPage(ctx, deps.tickets.sign(uid, { user: user.uuid, stage: 'mfa', amr }), has);
  if (ctx.state.interaction.entry.app.require_mfa) return showEnrolment(ctx, deps, user, amr, true);
  return completeSignIn(ctx, deps, user, amr);
}

/** The second-factor page again (after a wrong code or passkey), offering what the user has. */
export async function showSecondFactor(
  ctx: InteractionContext,
  deps: SignInDeps,
  user: UserRow,
  ticket: string,
  error: string,
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
  error?: string,
) {
  const { uid } = ctx.state.interaction.details;
  const secret = await pendingTotpSecret(deps.store, user, deps.settings.secrets.key, fresh);
  // Confirmed meanwhile (another tab): ask for a code like any enrolled user.
  if (!secret) return renderMfaPage(ctx, deps.tickets.sign(uid, { user: user.uuid, stage: 'mfa', amr }), { totp: true, passkey: false });
  const issuer = new URL(deps.settings.issuer.base_url).host;
  const ticket = deps.tickets.sign(uid, { user: user.uuid, stage: 'enrol', amr });
  return renderEnrolPage(ctx, ticket, secret, otpauthUrl(secret, user.email, issuer), error, error ? 400 : 200);
}

export async function completeSignIn(ctx: InteractionContext, deps: SignInDeps, user: UserRow, amr: string[]) {
  const { app } = ctx.state.interaction.entry;
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
