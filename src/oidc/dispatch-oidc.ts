/**
 * Routes /application/o/… to the application's provider. Shared endpoints pick it by client_id
 * (authorize, token) or by the access token's client (userinfo); everything else by the slug in the path.
 */
import type { Context, Next } from 'koa';
import type { Store } from '../store/contract.js';
import { renderPage } from '../interactions/render-page.js';
import { runProvider } from './mount-provider.js';
import { SHARED_PREFIX, type AppProvider, type ProviderSet } from './providers.js';
import { readTokenClientId } from './read-token-client.js';
import type { RateLimits } from '../domain/rate-limits.js';

function oauthError(ctx: Context, status: number, error: string, description: string) {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

function unknownClientPage(ctx: Context) {
  renderPage(ctx, 'error', {
    title: 'Sign-in error',
    heading: 'This sign-in request cannot be completed',
    message: 'The application that sent you here is not registered (unknown or missing client_id). Go back and try again, or contact its support.',
    code: 'invalid_client',
  }, 400);
}

function bearerToken(ctx: Context): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(ctx.get('Authorization'))?.[1];
}

export function dispatchOidc(providers: ProviderSet, store: Store, limits: RateLimits) {
  const mountApp = (entry: AppProvider) => `${SHARED_PREFIX}/${entry.app.slug}`;

  async function authorize(ctx: Context, next: Next) {
    const clientId = typeof ctx.query.client_id === 'string' ? ctx.query.client_id : undefined;
    const entry = clientId === undefined ? undefined : providers.byClientId.get(clientId);
    if (!entry) return unknownClientPage(ctx);
    // Mounted under the app's own prefix so the resume URL (…/{slug}/authorize/{uid}) finds this provider.
    return runProvider(entry.provider, ctx, next, mountApp(entry), '/authorize');
  }

  async function token(ctx: Context, next: Next) {
    if (ctx.method !== 'POST') return oauthError(ctx, 405, 'invalid_request', 'the token endpoint only accepts POST');
    // The engine reads bodies as they come; no OAuth client compresses a token request.
    if (!['', 'identity'].includes(ctx.get('Content-Encoding').toLowerCase())) {
      return oauthError(ctx, 400, 'invalid_request', 'compressed request bodies are not supported');
    }
    const clientId = await readTokenClientId(ctx);
    const entry = clientId === undefined ? undefined : providers.byClientId.get(clientId);
    if (!entry) return oauthError(ctx, 401, 'invalid_client', 'client authentication failed');
    // Failed client authentications slow down per client and address (guessing a secret, a misconfigured app).
    const key = `${clientId}|${ctx.ip}`;
    const limited = await limits.check([['client_auth', key]]);
    if (!limited.allowed) {
      ctx.set('Retry-After', String(limited.retryAfterSeconds));
      return oauthError(ctx, 429, 'invalid_client', `too many failed client authentications; try again in ${limited.retryAfterSeconds} s`);
    }
    await runProvider(entry.provider, ctx, next, SHARED_PREFIX, '/token/');
    if (ctx.status === 401 && (ctx.body as { error?: string } | undefined)?.error === 'invalid_client') await limits.attempt([['client_auth', key]]);
  }

  async function userinfo(ctx: Context, next: Next) {
    const accessToken = bearerToken(ctx);
    const row = accessToken ? await store.oidcPayloads.find('AccessToken', accessToken, new Date()) : undefined;
    const entry = row?.client_id ? providers.byClientId.get(row.client_id) : undefined;
    if (!entry) {
      ctx.set('WWW-Authenticate', 'Bearer error="invalid_token", error_description="invalid token provided"');
      return oauthError(ctx, 401, 'invalid_token', 'invalid token provided');
    }
    return runProvider(entry.provider, ctx, next, SHARED_PREFIX, '/userinfo/');
  }

  return async function dispatchToProvider(ctx: Context, next: Next) {
    if (!ctx.path.startsWith(`${SHARED_PREFIX}/`)) return next();
    const rest = ctx.path.slice(SHARED_PREFIX.length); // "/authorize/", "/{slug}/jwks/"…
    if (rest === '/authorize/') return authorize(ctx, next);
    if (rest === '/token/') return token(ctx, next);
    if (rest === '/userinfo/') return userinfo(ctx, next);
    const [, slug, ...inner] = rest.split('/');
    const entry = slug ? providers.bySlug.get(slug) : undefined;
    if (!entry) return next();
    return runProvider(entry.provider, ctx, next, mountApp(entry), `/${inner.join('/')}`);
  };
}
