/**
 * Passkeys on the sign-in pages. POST …/passkey/options hands the browser a challenge (JSON; limited per IP and
 * per sign-in, each one a stored row); POST …/passkey checks the answer. Without a ticket it is a passwordless
 * sign-in (any passkey of this site, with user verification: possession plus PIN or biometrics, two factors at
 * once); with an "mfa" ticket it is the second factor of the user who gave their password, counted per account
 * with their codes. Attempts count like codes, per interaction and per IP.
 */
import { authenticationOptions, checkPasskey, registerPasskey, registrationOptions } from '../domain/passkeys.js';
import { findUserByUuid } from '../domain/users.js';
import type { InteractionContext, SignInDeps } from './state.js';
import { countAttempt, countFailure } from './count-attempt.js';
import { loadTicketUser } from './load-ticket-user.js';
import { renderEmailPage } from './pages.js';
import { waitValues } from '../pages/wait-text.js';
import { text, type Text } from '../i18n/messages.js';
import { chooseLocale, messagesOf } from '../i18n/choose-locale.js';
import { userKey, type LimitKind } from '../domain/rate-limits.js';
import { completeSignIn, showEnrolment, showSecondFactor } from './continue-sign-in.js';
import { signIns } from '../observability/metrics.js';
import { audit } from '../domain/audit.js';

/** Catalogue keys (locales/en/sign-in.json). */
export const PASSKEY_FAILED = 'sign_in.errors.passkey_failed';
export const PASSKEY_REFUSED = 'sign_in.errors.passkey_refused';

const purposeOf = (ctx: InteractionContext) => `sign-in:${ctx.state.interaction.details.uid}`;

/**
 * Each challenge is a stored row: asked for per client IP and per sign-in within limits (the store also keeps only
 * the newest few of a sign-in). Refused, the script shows the message; the page's other ways still work.
 */
async function challengeAllowed(ctx: InteractionContext, deps: SignInDeps): Promise<boolean> {
  const limited = await deps.services.limits.attempt([
    ['challenges_ip', ctx.ip],
    ['challenges', ctx.state.interaction.details.uid],
  ]);
  if (limited.allowed) return true;
  // The script shows the message as it is: worded here, in the page's language.
  const { t } = messagesOf(ctx as never).translator(chooseLocale(ctx as never));
  ctx.status = 429;
  ctx.set('Retry-After', String(limited.retryAfterSeconds));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'rate_limited', message: t(text('sign_in.passkey.too_many_requests', waitValues(limited.retryAfterSeconds))) };
  return false;
}

export function passkeyOptions(deps: SignInDeps) {
  return async function passkeyOptions(ctx: InteractionContext) {
    const asSecondFactor = ctx.request.body?.ticket !== undefined;
    const allow = asSecondFactor ? await deps.store.passkeys.listForUser((await loadTicketUser(ctx, deps, 'mfa')).user.id) : undefined;
    if (!(await challengeAllowed(ctx, deps))) return;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await authenticationOptions(deps.store, deps.rp, purposeOf(ctx), allow);
  };
}

export function submitPasskey(deps: SignInDeps) {
  return async function submitPasskey(ctx: InteractionContext) {
    const asSecondFactor = ctx.request.body?.ticket !== undefined;
    const step = asSecondFactor ? await loadTicketUser(ctx, deps, 'mfa') : undefined;
    const token = String(ctx.request.body?.ticket ?? '');
    const { details, entry } = ctx.state.interaction;
    const refuse = (message: string | Text, status: number) =>
      step ? showSecondFactor(ctx, deps, step.user, token, message, status) : renderEmailPage(ctx, '', message, status);

    // As a second factor, a try at the account's budget (shared with its codes); passwordless, nobody is named yet.
    const limited = await countAttempt(ctx, deps, [
      ['interaction', `mfa:${details.uid}`],
      ...(step ? [['second_factor', userKey(step.user)] as [LimitKind, string]] : []),
    ]);
    if (limited.refused) return refuse(limited.refused, 429);
    const failed = async (message: string | Text, status: number) => {
      await countFailure(ctx, deps);
      return refuse(message, status);
    };

    const answer = String(ctx.request.body?.response ?? '');
    const checked = await checkPasskey(deps.store, deps.rp, { answer, purpose: purposeOf(ctx), userId: step?.user.id });
    const user = checked.ok ? await findUserByUuid(deps.store, checked.userUuid) : undefined;
    if (!checked.ok || !user?.is_active) {
      signIns.inc({ outcome: 'failure', method: 'passkey' });
      if (!checked.ok && checked.reason === 'cloned') {
        deps.services.logger?.warn(
          { app: entry.app.slug, user: step?.user.uuid },
          'passkey refused: its sign counter went backwards (a cloned authenticator?)',
        );
        return failed(PASSKEY_REFUSED, 400);
      }
      await audit(deps.store, 'sign_in.failed', { user: step?.user.uuid, app: entry.app.slug, details: { step: 'passkey' } });
      return failed(PASSKEY_FAILED, 400);
    }
    if (step) await deps.services.limits.reset('second_factor', userKey(step.user));
    return completeSignIn(ctx, deps, user, step ? [...step.ticket.amr, ...checked.amr] : checked.amr, step?.ticket.link);
  };
}

/**
 * Enrolment at sign-in (an application with require_mfa, a user without a second factor): a passkey instead of
 * an authenticator app. POST …/passkey/enrol-options, then POST …/passkey/enrol with the "enrol" ticket.
 */
export function passkeyEnrolOptions(deps: SignInDeps) {
  return async function passkeyEnrolOptions(ctx: InteractionContext) {
    const { user } = await loadTicketUser(ctx, deps, 'enrol');
    if (!(await challengeAllowed(ctx, deps))) return;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await registrationOptions(deps.store, deps.rp, user, `enrol:${ctx.state.interaction.details.uid}`);
  };
}

export function submitPasskeyEnrolment(deps: SignInDeps) {
  return async function submitPasskeyEnrolment(ctx: InteractionContext) {
    const { ticket, user } = await loadTicketUser(ctx, deps, 'enrol');
    const { details, entry } = ctx.state.interaction;
    const limited = await countAttempt(ctx, deps, [['interaction', `mfa:${details.uid}`]]);
    if (limited.refused) return showEnrolment(ctx, deps, user, ticket.amr, false, limited.refused);
    const name = String(ctx.request.body?.name ?? '').trim() || 'Passkey';
    const answer = String(ctx.request.body?.response ?? '');
    const added = await registerPasskey(deps.store, deps.rp, user, { answer, purpose: `enrol:${details.uid}`, name });
    if (!added) return showEnrolment(ctx, deps, user, ticket.amr, false, 'sign_in.errors.passkey_not_added');
    await audit(deps.store, 'mfa.enrolled', { user: user.uuid, app: entry.app.slug, details: { method: 'passkey' } });
    return completeSignIn(ctx, deps, user, [...ticket.amr, ...added.amr]);
  };
}
