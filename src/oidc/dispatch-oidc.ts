/**
 * Routes /application/o/… to the application's provider. Shared endpoints pick it by client_id
 * (authorize, token) or by the access token's client (userinfo); everything else by the slug in the path.
 */
import type { Context, Next } from 'koa';
import type { Store } from '../store/contract.js';
import { PageError, ProtocolError } from '../errors.js';
import { runProvider } from './mount-provider.js';
import { SHARED_PREFIX, type AppProvider, type ProviderSet } from './providers.js';
import { readTokenClientId } from './read-token-client.js';
import type { RateLimits } from '../domain/rate-limits.js';

const ENGINE_PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

/** script-src keeps only the hashes the engine added; without any, no script at all. */
function onlyHashedScripts(policy: string): string {
  return policy.split(';').map((directive) => directive.trim()).flatMap((directive) => {
    if (!directive.startsWith('script-src')) return [directive];
    const hashes = directive.split(/\s+/).filter((source) => source.startsWith("'sha256-"));
    return hashes.length ? [`script-src ${hashes.join(' ')}`] : [];
  }).join('; ');
}

const oauthError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
  new ProtocolError(status, error, description, headers);

const unknownClient = () => new PageError(400, {
  title: 'Sign-in error',
  heading: 'This sign-in request cannot be completed',
  message: 'The application that sent you here is not registered with this service. Go back and try again, or contact its support.',
  code: 'invalid_client',
});

function bearerToken(ctx: Context): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(ctx.get('Authorization'))?.[1];
}

export function dispatchOidc(providers: ProviderSet, store: Store, limits: RateLimits) {
  const mountApp = (entry: AppProvider) => `${SHARED_PREFIX}/${entry.app.slug}`;

  async function authorize(ctx: Context, next: Next) {
    const clientId = typeof ctx.query.client_id === 'string' ? ctx.query.client_id : undefined;
    const entry = clientId === undefined ? undefined : providers.byClientId.get(clientId);
    if (!entry) throw unknownClient();
    // Mounted under the app's own prefix so the resume URL (…/{slug}/authorize/{uid}) finds this provider.
    return runProvider(entry.provider, ctx, next, mountApp(entry), '/authorize');
  }

  async function token(ctx: Context, next: Next) {
    if (ctx.method !== 'POST') throw oauthError(405, 'invalid_request', 'the token endpoint only accepts POST', { Allow: 'POST' });
    // The engine reads bodies as they come; no OAuth client compresses a token request.
    if (!['', 'identity'].includes(ctx.get('Content-Encoding').toLowerCase())) {
      throw oauthError(400, 'invalid_request', 'compressed request bodies are not supported');
    }
    const clientId = await readTokenClientId(ctx);
    const entry = clientId === undefined ? undefined : providers.byClientId.get(clientId);
    if (!entry) throw oauthError(401, 'invalid_client', 'client authentication failed');
    // Failed client authentications slow down per client and address (guessing a secret, a misconfigured app).
    const key = `${clientId}|${ctx.ip}`;
    const limited = await limits.check([['client_auth', key]]);
    if (!limited.allowed) {
      const wait = limited.retryAfterSeconds;
      throw oauthError(429, 'invalid_client', `too many failed client authentications; try again in ${wait} s`, { 'Retry-After': String(wait) });
    }
    await runProvider(entry.provider, ctx, next, SHARED_PREFIX, '/token/');
    if (ctx.status === 401 && (ctx.body as { error?: string } | undefined)?.error === 'invalid_client') await limits.attempt([['client_auth', key]]);
  }

  async function userinfo(ctx: Context, next: Next) {
    const accessToken = bearerToken(ctx);
    const row = accessToken ? await store.oidcPayloads.find('AccessToken', accessToken, new Date()) : undefined;
    const entry = row?.client_id ? providers.byClientId.get(row.client_id) : undefined;
    if (!entry) {
      throw oauthError(401, 'invalid_token', 'invalid token provided', { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="invalid token provided"' });
    }
    return runProvider(entry.provider, ctx, next, SHARED_PREFIX, '/userinfo/');
  }

  return async function dispatchToProvider(ctx: Context, next: Next) {
    if (!ctx.path.startsWith(`${SHARED_PREFIX}/`)) return next();
    // Pages the engine writes itself (its self-submitting form_post) get the pages' policy: the engine adds its
    // inline script's hash to a script-src it finds, and only that hash is kept. Our own pages set theirs.
    ctx.set('Content-Security-Policy', ENGINE_PAGE_CSP);
    try {
      return await route(ctx, next);
    } finally {
      const policy = ctx.response.get('Content-Security-Policy');
      if (/(^|;)\s*script-src 'self'/.test(policy)) ctx.set('Content-Security-Policy', onlyHashedScripts(policy));
    }
  };

  async function route(ctx: Context, next: Next) {
    const rest = ctx.path.slice(SHARED_PREFIX.length); // "/authorize/", "/{slug}/jwks/"…
    if (rest === '/authorize/') return authorize(ctx, next);
    if (rest === '/token/') return token(ctx, next);
    if (rest === '/userinfo/') return userinfo(ctx, next);
    const [, slug, ...inner] = rest.split('/');
    const entry = slug ? providers.bySlug.get(slug) : undefined;
    if (!entry) return next();
    return runProvider(entry.provider, ctx, next, mountApp(entry), `/${inner.join('/')}`);
  }
}
