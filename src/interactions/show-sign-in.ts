/** GET /if/flow/{slug}/{uid}/: the first page of the sign-in (e-mail). */
import type { InteractionContext } from './state.js';
import { renderPage } from '../pages/render-page.js';
import { finishInteraction } from './finish-interaction.js';

export function renderEmailPage(ctx: InteractionContext, email = '', error?: string, status = 200) {
  const { entry, base, csrf } = ctx.state.interaction;
  renderPage(ctx as never, 'email', { title: `Sign in to ${entry.app.name}`, appName: entry.app.name, action: `${base}email`, csrf, email, error }, status);
}

export function renderPasswordPage(ctx: InteractionContext, email: string, error?: string, status = 200) {
  const { entry, base, csrf } = ctx.state.interaction;
  renderPage(ctx as never, 'password', {
    title: `Sign in to ${entry.app.name}`, appName: entry.app.name, action: `${base}password`, restart: base, csrf, email, error,
  }, status);
}

export async function showSignIn(ctx: InteractionContext) {
  const { details, entry } = ctx.state.interaction;
  if (details.prompt.name === 'login') return renderEmailPage(ctx, typeof details.params.login_hint === 'string' ? details.params.login_hint : '');
  // Not expected (loadExistingGrant grants first-party apps), but never leave the browser stranded on consent.
  const grant = new entry.provider.Grant({ clientId: entry.app.client_id, accountId: details.session!.accountId });
  grant.addOIDCScope(String(details.params.scope ?? ''));
  return finishInteraction(ctx, { consent: { grantId: await grant.save() } });
}
