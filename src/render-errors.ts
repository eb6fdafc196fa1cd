/**
 * The one error middleware: every error that leaves a handler is answered in its family's shape — the API's
 * JSON (`{"detail"}` or a field map), SCIM's error (RFC 7644 §3.12), an OAuth error for the protocol's JSON endpoints, a readable page for
 * everything people look at — never plain text, never a stack. An error outside the contract is a bug: logged
 * here once with its stack, answered generically with 500. The engine's own errors are rendered by the engine
 * (src/oidc/render-engine-error.ts for its pages); they do not come through here.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { AppError, NotFoundError, PageError, ProtocolError, Unavailable, unavailableIn } from './errors.js';
import { detail, toApiError } from './api/errors.js';
import { isScimPath, renderScimError } from './scim/errors.js';
import { renderErrorPage } from './pages/error-page.js';
import { brieflyUnavailable, ourFault } from './pages/fault-pages.js';
import { loggablePath } from './observability/request-log.js';
import { text } from './i18n/messages.js';

/** JSON endpoints of the protocol (the rest of /application/o/ is pages: authorize, end-session…), and metadata at RFC 8414 §3.1 locations. */
const PROTOCOL_JSON =
  /^\/application\/o\/(token|userinfo|introspect|revoke|device)\/?$|^\/application\/o\/[^/]+\/(jwks\/?|\.well-known\/.*)$|^\/\.well-known\/(openid-configuration|oauth-authorization-server)\//;

type Family = 'api' | 'scim' | 'protocol' | 'page';

function familyOf(ctx: Context, error: unknown): Family {
  if (ctx.path === '/api' || ctx.path.startsWith('/api/')) return 'api';
  if (isScimPath(ctx.path)) return 'scim';
  if (error instanceof ProtocolError || PROTOCOL_JSON.test(ctx.path)) return 'protocol';
  return 'page';
}

function renderProtocol(ctx: Context, error: unknown) {
  const known =
    error instanceof ProtocolError
      ? error
      : error instanceof Unavailable
        ? new ProtocolError(503, 'temporarily_unavailable', error.message, error.headers)
        : error instanceof AppError && error.expose
          ? new ProtocolError(error.status, 'invalid_request', error.message, error.headers)
          : new ProtocolError(500, 'server_error', 'something went wrong on our side; try again later');
  ctx.status = known.status;
  ctx.set({ ...known.headers, 'Cache-Control': 'no-store' });
  ctx.body = { error: known.error, error_description: known.description };
}

/** Words for people, whatever went wrong; a way on where one exists. */
function pageErrorOf(ctx: Context, error: unknown): PageError {
  if (error instanceof PageError) return error;
  if (error instanceof Unavailable) return brieflyUnavailable(ctx, error);
  if (error instanceof NotFoundError)
    return new PageError(404, { heading: 'error.not_found.heading', message: 'error.not_found.message' }, error);
  if (error instanceof AppError && error.expose) {
    // The message is the error's own (English, as the code words it): a key no catalogue has is shown as it is.
    return new PageError(error.status, { heading: 'error.request.heading', message: error.message }, error);
  }
  return ourFault(ctx, error);
}

function methodNotAllowed(ctx: Context): PageError {
  const allowed = ctx.response.get('Allow');
  return new PageError(ctx.status, {
    heading: 'error.request.heading',
    message: allowed ? text('error.method.allowed_only', { allowed }) : 'error.method.not_answered',
  });
}

export function renderErrors(logger: Logger) {
  return async function renderError(ctx: Context, next: Next) {
    try {
      await next();
      if (familyOf(ctx, undefined) === 'page') {
        if (ctx.status === 404 && ctx.body == null) throw new NotFoundError('page');
        // The routers' allowedMethods answer a wrong method in plain text; people get a page (the Allow header stays).
        if (ctx.status === 405 || ctx.status === 501) throw methodNotAllowed(ctx);
      }
    } catch (thrown) {
      const error = unavailableIn(thrown) ?? thrown;
      if (!(error instanceof AppError) || (error.status >= 500 && !(error instanceof Unavailable))) {
        logger.error({ err: error, method: ctx.method, path: loggablePath(ctx.path) }, 'request failed');
      }
      switch (familyOf(ctx, error)) {
        case 'api': {
          const answer = toApiError(error) ?? detail(500, 'Internal server error.');
          ctx.status = answer.status;
          ctx.set(answer.headers);
          ctx.body = answer.body;
          return;
        }
        case 'scim':
          return renderScimError(ctx, error);
        case 'protocol':
          return renderProtocol(ctx, error);
        default:
          return renderErrorPage(ctx, pageErrorOf(ctx, error));
      }
    }
  };
}
