/**
 * The RP-initiated logout pages. With a valid id_token_hint the application proved the request is its own,
 * and the spec wants the SSO session ended without a prompt: the page posts the engine's form (with
 * logout=yes: every application of the session) by itself, through a script allowed by a per-response CSP
 * nonce; a visible button covers no-JS. Without a hint anyone could have sent the browser here (logout CSRF):
 * the page asks, and only its POST (CSRF-bound by the engine's xsrf field) ends the session. Its Cancel is a plain
 * link back to the application that asked (nothing is ended, nothing posted).
 */
import { randomBytes } from 'node:crypto';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { applicationHome } from '../domain/applications.js';
import { renderPage } from '../pages/render-page.js';

const csp = (nonce: string) =>
  `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'`;

/**
 * Where Cancel goes: the post_logout_redirect_uri the application sent (the engine has matched it against the
 * registered ones), else the application's own start page (the origin of its first web redirect URI). Without a
 * client_id or hint no application is known: the page then only says the visitor may close it.
 */
function cancelTarget(ctx: KoaContextWithOIDC): { href: string; name: string } | undefined {
  const { client, params } = ctx.oidc;
  if (!client) return undefined;
  const href = (params?.post_logout_redirect_uri as string | undefined) ?? applicationHome(client.redirectUris ?? []);
  return href ? { href, name: client.clientName ?? client.clientId } : undefined;
}

/**
 * `form` is the engine's `<form id="op.logoutForm" …>` holding the xsrf field; it is HTML we pass through, open:
 * views/logout.eta adds the logout=yes field and the (translated) Sign out button, and closes it.
 */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const open = form.replace('</form>', '');
  if (!ctx.oidc.params?.id_token_hint) {
    renderPage(ctx as never, 'logout', { title: 'logout.confirm.title', form: open, confirm: true, cancel: cancelTarget(ctx) });
    return;
  }
  const nonce = randomBytes(16).toString('base64');
  renderPage(ctx as never, 'logout', { title: 'logout.signing_out.heading', form: open, nonce });
  ctx.set('Content-Security-Policy', csp(nonce));
}

/** Shown after a logout without post_logout_redirect_uri. */
export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  renderPage(ctx as never, 'logged-out', { title: 'logout.done.title' });
}
