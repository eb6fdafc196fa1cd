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

function pageFor(ctx: KoaContextWithOIDC, out: ErrorOut, error: unknown): PageError {
  if (out.error === 'temporarily_unavailable' || error instanceof Unavailable) return brieflyUnavailable(ctx, error, out.error);
  if (out.error === 'server_error') return ourFault(ctx, error, out.error);
  const status = ctx.status >= 400 && ctx.status < 500 ? ctx.status : 400;
  // A known application gets a way back to it.
  const client = ctx.oidc?.client as { clientName?: string; redirectUris?: string[] } | undefined;
  const home = client?.redirectUris && applicationHome(client.redirectUris);
  const back = home ? { link: { href: home, label: `Back to ${client!.clientName ?? 'the application'}` } } : {};
  if (ctx.oidc?.route?.startsWith('end_session')) {
    return new PageError(
      status,
      {
        title: 'Sign-out error',
        heading: 'This sign-out request cannot be completed',
        message:
          'The sign-out link is not valid: it may be incomplete, changed, or meant for another application. Go back to the application and sign out there.',
        code: out.error,
        ...back,
      },
      error,
    );
  }
  const message =
    out.error === 'invalid_client'
      ? 'The application that sent you here is not registered with this service. Go back and try again, or contact its support.'
      : /redirect_uri/.test(out.error_description ?? '')
        ? 'The application that sent you here asked to return to an address it has not registered. Contact its support.'
        : 'The application sent an incomplete or invalid sign-in request. Go back to the application and try again.';
  return new PageError(
    status,
    { title: 'Sign-in error', heading: 'This sign-in request cannot be completed', message, code: out.error, ...back },
    error,
  );
}

export async function renderEngineError(ctx: KoaContextWithOIDC, out: ErrorOut, error?: unknown): Promise<void> {
  renderErrorPage(ctx as never, pageFor(ctx, out, error));
}
