/**
 * The engine's error pages (authorization and end-session requests that cannot go back to the application:
 * unknown client, unregistered redirect_uri, a bad id_token_hint…) in plain language, never the engine's
 * own wording; the OAuth code stays visible, small, for support. Never a redirect.
 */
import type { KoaContextWithOIDC, ErrorOut } from 'oidc-provider';
import { PageError, Unavailable } from '../errors.js';
import { renderErrorPage } from '../pages/error-page.js';
import { brieflyUnavailable, ourFault } from '../pages/fault-pages.js';
import { applicationHome } from '../domain/applications.js';
import { text } from '../i18n/messages.js';

function pageFor(ctx: KoaContextWithOIDC, out: ErrorOut, error: unknown): PageError {
  if (out.error === 'temporarily_unavailable' || error instanceof Unavailable) return brieflyUnavailable(ctx, error, out.error);
  if (out.error === 'server_error') return ourFault(ctx, error, out.error);
  const status = ctx.status >= 400 && ctx.status < 500 ? ctx.status : 400;
  // A known application gets a way back to it.
  const client = ctx.oidc?.client as { clientName?: string; redirectUris?: string[] } | undefined;
  const home = client?.redirectUris && applicationHome(client.redirectUris);
  const label = client?.clientName ? text('error.back_to_app', { app: client.clientName }) : 'error.back_to_application';
  const back = home ? { link: { href: home, label } } : {};
  if (ctx.oidc?.route?.startsWith('end_session')) {
    return new PageError(
      status,
      {
        title: 'error.sign_out.title',
        heading: 'error.sign_out.heading',
        message: 'error.sign_out.invalid_link',
        code: out.error,
        ...back,
      },
      error,
    );
  }
  const message =
    out.error === 'invalid_client'
      ? 'error.sign_in.unknown_client'
      : /redirect_uri/.test(out.error_description ?? '')
        ? 'error.sign_in.unregistered_redirect'
        : 'error.sign_in.invalid_request';
  return new PageError(
    status,
    { title: 'error.sign_in.title', heading: 'error.sign_in.heading', message, code: out.error, ...back },
    error,
  );
}

export async function renderEngineError(ctx: KoaContextWithOIDC, out: ErrorOut, error?: unknown): Promise<void> {
  renderErrorPage(ctx as never, pageFor(ctx, out, error));
}
