/**
 * The RP-initiated logout pages. With a valid id_token_hint the application proved the request is its own,
 * and the spec wants the SSO session ended without a prompt: the page posts the engine's form (with
 * logout=yes: every application of the session) by itself, through a script allowed by a per-response CSP
 * nonce; a visible button covers no-JS. Without a hint anyone could have sent the browser here (logout CSRF):
 * the page asks, and only its POST (CSRF-bound by the engine's xsrf field) ends the session.
 */
import { randomBytes } from 'node:crypto';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { renderPage } from '../pages/render-page.js';

const csp = (nonce: string) =>
  `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'`;

/** `form` is the engine's `<form id="op.logoutForm" …>` holding the xsrf field; it is HTML we pass through. */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const fields = '<input type="hidden" name="logout" value="yes"/><button type="submit" autofocus>Sign out</button>';
  const withButton = form.replace('</form>', `${fields}</form>`);
  if (!ctx.oidc.params?.id_token_hint) {
    renderPage(ctx as never, 'logout', { title: 'Sign out?', form: withButton, confirm: true });
    return;
  }
  const nonce = randomBytes(16).toString('base64');
  renderPage(ctx as never, 'logout', { title: 'Signing out', form: withButton, nonce });
  ctx.set('Content-Security-Policy', csp(nonce));
}

/** Shown after a logout without post_logout_redirect_uri. */
export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  renderPage(ctx as never, 'logged-out', { title: 'Signed out' });
}
