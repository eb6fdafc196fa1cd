/** The engine's error page (unknown client, unregistered redirect_uri…): readable, escaped, never a redirect. */
import type { KoaContextWithOIDC, ErrorOut } from 'oidc-provider';
import { renderPage } from '../interactions/render-page.js';

export async function renderEngineError(ctx: KoaContextWithOIDC, out: ErrorOut): Promise<void> {
  const status = ctx.status >= 400 ? ctx.status : 400;
  renderPage(ctx as never, 'error', {
    title: 'Sign-in error',
    heading: 'This sign-in request cannot be completed',
    message: out.error_description ?? out.error,
    code: out.error,
  }, status);
}
