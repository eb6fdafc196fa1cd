/**
 * POST /if/flow/{slug}/{uid}/link: the person from an upstream proves the account that has their address, once, by
 * its password — counted and limited like every password (per account from this address, per account, per IP) —
 * and then by its second factor when it has one; the link is made when the proof is complete (continue-sign-in.ts).
 */
import type { InteractionContext } from '../interactions/state.js';
import { renderLinkPage, restart } from '../interactions/pages.js';
import { loadTicketUser } from '../interactions/load-ticket-user.js';
import { countAttempt, countFailure } from '../interactions/count-attempt.js';
import { continueSignIn } from '../interactions/continue-sign-in.js';
import { checkCredentials, lookUpAddress } from '../domain/passwords.js';
import { accountKey } from '../domain/rate-limits.js';
import { audit } from '../domain/audit.js';
import { signIns } from '../observability/metrics.js';
import type { SourceDeps } from './state.js';

/** A catalogue key (locales/en/sources.json). */
export const WRONG_PASSWORD = 'sources.link.wrong_password';

export function submitLink(deps: SourceDeps) {
  return async function submitLink(ctx: InteractionContext) {
    const { ticket, user } = await loadTicketUser(ctx, deps, 'link');
    const source = ticket.link && deps.upstreams.get(ticket.link.source)?.source;
    if (!ticket.link || !source) throw restart(ctx, 'sign_in.restart.step_expired');
    const token = String(ctx.request.body?.ticket);

    const lookup = await lookUpAddress(deps.store, user.email);
    const key = accountKey(lookup);
    const fromHere = `${key}|${ctx.ip}`;
    const limited = await countAttempt(ctx, deps, [
      ['account', fromHere],
      ['account_total', key],
    ]);
    if (limited.refused) return renderLinkPage(ctx, token, user.email, source.name, limited.refused, 429);

    const password = String(ctx.request.body?.password ?? '');
    const signedIn = await checkCredentials(lookup.record, password, deps.settings.passwords.bcrypt_cost);
    if (!signedIn || signedIn.user.id !== user.id) {
      await countFailure(ctx, deps);
      signIns.inc({ outcome: 'failure', method: 'pwd' });
      await audit(deps.store, 'sign_in.failed', {
        user: user.uuid,
        app: ctx.state.interaction.entry.app.slug,
        details: { step: 'link', source: source.slug },
      });
      return renderLinkPage(ctx, token, user.email, source.name, WRONG_PASSWORD, 400);
    }
    await Promise.all([deps.services.limits.reset('account', fromHere), deps.services.limits.reset('account_total', key)]);
    return continueSignIn(ctx, deps, signedIn.user, [...ticket.amr, 'pwd'], signedIn.secondFactors, ticket.link);
  };
}
