/**
 * Routes /application/o/… to the application's provider, as a table. Shared endpoints pick the provider by
 * client_id (authorize, token, revoke, introspect) or by the access token's client (userinfo); per-application
 * ones (discovery, JWKS, end-session, the authorization resume) by the slug, as is the discovery document at its
 * RFC 8414 location (/.well-known/…/application/o/{slug}). Every path answers with or without its trailing slash.
 * CORS is decided here per application (cors.ts); pages the engine writes get a CSP.
 */
import { stringify, type ParsedUrlQueryInput } from 'node:querystring';
import type { Context, Next } from 'koa';
import { errors } from 'oidc-provider';
import type { Store } from '../store/contract.js';
import type { RateLimits } from '../domain/rate-limits.js';
import { allowedOrigins } from '../domain/applications.js';
import { PageError, ProtocolError, RETRY_AFTER_SECONDS, Unavailable } from '../errors.js';
import { temporarilyUnavailable } from './engine-unavailable.js';
import { runProvider } from './mount-provider.js';
import { SHARED_PREFIX, type AppProvider, type ProviderSet } from './providers.js';
import { formOf, readClientCredentials } from './read-client.js';
import { allowOrigin, answerPreflight, isPreflight, noCors } from './cors.js';
import { authenticatedCaller, introspection } from './introspect.js';
import { withEnginePagePolicy } from './engine-page-csp.js';
import { checkMachineScopes } from './check-machine-scopes.js';
import { rememberRead } from './request-reads.js';
import { commitWriteBatch, discardWriteBatch, openWriteBatch } from './write-batch.js';
import { answerPublished, keepPublished } from './published-documents.js';
import { inputProblem } from '../domain/input-text.js';
import { audit, currentActor } from '../domain/audit.js';

const oauthError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
  new ProtocolError(status, error, description, headers);

const unknownClient = () =>
  new PageError(400, {
    title: 'Sign-in error',
    heading: 'This sign-in request cannot be completed',
    message: 'The application that sent you here is not registered with this service. Go back and try again, or contact its support.',
    code: 'invalid_client',
  });

const invalidToken = () =>
  oauthError(401, 'invalid_token', 'invalid token provided', {
    'WWW-Authenticate': 'Bearer error="invalid_token", error_description="invalid token provided"',
  });

/**
 * The spec's rule: a request without the openid scope is refused with invalid_scope, whatever else it carries.
 * The engine refuses some of them earlier (with nonce, max_age…) as invalid_request, naming openid; the error
 * redirect to the application is reworded to the one code, description kept.
 */
function openidRequiredIsInvalidScope(ctx: Context) {
  const location = ctx.response.get('Location');
  if (ctx.status !== 303 || !location.includes('openid+scope+must+be+requested')) return;
  const url = new URL(location);
  if (url.searchParams.get('error') !== 'invalid_request') return;
  url.searchParams.set('error', 'invalid_scope');
  ctx.set('Location', url.href);
}

/** RFC 6749 §5.2 calls a grant type the client may not use unauthorized_client; the engine says invalid_request. */
function grantNotAllowedIsUnauthorizedClient(ctx: Context) {
  const body = ctx.body as { error?: string; error_description?: string } | undefined;
  if (
    ctx.status === 400 &&
    body?.error === 'invalid_request' &&
    body.error_description === 'requested grant type is not allowed for this client'
  ) {
    ctx.body = { ...body, error: 'unauthorized_client' };
  }
}

/**
 * End-session parameters the engine keeps in the session (state, the post-logout URI): text the store cannot
 * hold is refused here as a page, before the engine writes it (its session save would fail after the answer).
 */
async function refuseUnstorableLogoutParams(ctx: Context) {
  const params = ctx.method === 'POST' ? { ...ctx.query, ...(await formOf(ctx)) } : ctx.query;
  const name = Object.keys(params).find((key) => inputProblem(key) || inputProblem(params[key]));
  if (name === undefined) return;
  throw new PageError(400, {
    title: 'Sign-out error',
    heading: 'This sign-out request cannot be completed',
    message: 'The request holds characters that are not allowed. Go back to the application and sign out from there.',
    code: 'invalid_request',
  });
}

/**
 * RFC 7009 §2.2: a revocation answers 200 and the client ignores the body. The engine's empty string would go out
 * as text/plain, which clients that accept JSON only (oidc-client-ts) refuse: the answer carries no content type.
 */
function emptyRevocationAnswer(ctx: Context) {
  ctx.body = '';
  ctx.remove('Content-Type');
}

/**
 * RFC 8414 §3.1: an issuer with a path has its metadata at /.well-known/{document} followed by that path, without
 * the final slash: /.well-known/oauth-authorization-server/application/o/{slug}. The same document as the issuer's
 * own {issuer}.well-known/… paths; openid-configuration is inserted too, as some clients try that first.
 */
const INSERTED_WELL_KNOWN = /^\/\.well-known\/(openid-configuration|oauth-authorization-server)\/application\/o\/([^/]+)\/?$/;

/** The access token of a UserInfo request: Bearer (RFC 6750) or DPoP (RFC 9449). */
function accessTokenOf(ctx: Context): string | undefined {
  return /^(?:Bearer|DPoP)\s+(\S+)$/i.exec(ctx.get('Authorization'))?.[1];
}

/** Per-application paths the engine serves, with the trailing slash it expects; anything else is not found. */
function engineInnerPath(inner: string): string | undefined {
  if (/^\/\.well-known\/(openid-configuration|oauth-authorization-server)\/?$/.test(inner)) return inner.replace(/\/$/, '');
  if (/^\/jwks\/?$/.test(inner)) return '/jwks/';
  if (/^\/end-session\/?$/.test(inner)) return '/end-session/';
  if (/^\/end-session\/+(confirm|success)\/?$/.test(inner)) return inner.replace(/\/+$/, '');
  if (/^\/authorize\/[^/]+\/?$/.test(inner)) return inner.replace(/\/$/, ''); // the resume after the sign-in pages
  return undefined;
}

export function dispatchOidc(providers: ProviderSet, store: Store, limits: RateLimits) {
  const apps = [...providers.bySlug.values()];
  const anyAppAllows = (origin: string) => apps.some((entry) => allowedOrigins(entry.app).includes(origin));
  const introspect = introspection(providers, store);

  /** Runs the app's engine for a shared JSON endpoint; only the app's origins may read the answer. */
  async function engineJson(ctx: Context, next: Next, entry: AppProvider, inner: string) {
    try {
      await runProvider(entry.provider, ctx, next, SHARED_PREFIX, inner);
    } finally {
      allowOrigin(ctx, allowedOrigins(entry.app));
      if (ctx.status === 503) ctx.set('Retry-After', String(RETRY_AFTER_SECONDS)); // temporarily_unavailable: the store's Unavailable
    }
  }

  async function authorize(ctx: Context, next: Next) {
    // GET carries the parameters in the query; POST (OIDC Core §3.1.2.1) in the form, same rules.
    const params = ctx.method === 'POST' ? await formOf(ctx) : ctx.query;
    const clientId = typeof params.client_id === 'string' ? params.client_id : undefined;
    const entry = clientId === undefined ? undefined : providers.byClientId.get(clientId);
    if (!entry) throw unknownClient();
    if (ctx.method === 'POST') {
      // The same request by GET (303): a cross-site POST would not carry the SameSite=Lax session cookie, and
      // single sign-on would be lost; the engine's own POST support needs SameSite=None cookies, which we refuse.
      ctx.status = 303;
      ctx.redirect(`${new URL('../authorize/', entry.provider.issuer).href}?${stringify(params as ParsedUrlQueryInput)}`);
      return;
    }
    // Mounted under the app's own prefix so the resume URL (…/{slug}/authorize/{uid}) finds this provider.
    try {
      await withBatchedWrites(ctx, () => runProvider(entry.provider, ctx, next, `${SHARED_PREFIX}/${entry.app.slug}`, '/authorize'));
      openidRequiredIsInvalidScope(ctx);
    } finally {
      noCors(ctx);
    }
  }

  /**
   * An authorization (and its resume after the sign-in pages): the grant, the code and the session in one
   * statement, written before the redirect that hands out the code leaves.
   */
  async function withBatchedWrites(ctx: Context, run: () => Promise<void>) {
    openWriteBatch(ctx);
    try {
      await run();
    } finally {
      await commitWriteBatch(store, ctx).catch((error) => {
        ctx.remove('Location');
        throw error;
      });
    }
  }

  /** The caller of token and revocation: its provider authenticates it; failures slow down per client and address. */
  async function clientEndpoint(ctx: Context, next: Next, inner: string, name: string) {
    if (ctx.method !== 'POST') throw oauthError(405, 'invalid_request', `the ${name} endpoint only accepts POST`, { Allow: 'POST' });
    // The engine reads bodies as they come; no OAuth client compresses these requests.
    if (!['', 'identity'].includes(ctx.get('Content-Encoding').toLowerCase())) {
      throw oauthError(400, 'invalid_request', 'compressed request bodies are not supported');
    }
    const { clientId } = await readClientCredentials(ctx);
    const entry = clientId === undefined ? undefined : providers.byClientId.get(clientId);
    if (!entry) throw oauthError(401, 'invalid_client', 'client authentication failed');
    const key = `${clientId}|${ctx.ip}`;
    const limited = await limits.check([['client_auth', key]]);
    if (!limited.allowed) {
      const wait = limited.retryAfterSeconds;
      throw oauthError(429, 'invalid_client', `too many failed client authentications; try again in ${wait} s`, {
        'Retry-After': String(wait),
      });
    }
    if (inner === '/token/') {
      await checkMachineScopes(ctx, entry.app);
      openWriteBatch(ctx);
      await engineJson(ctx, next, entry, inner);
      await commitIssuedTokens(ctx);
    } else {
      await engineJson(ctx, next, entry, inner);
    }
    grantNotAllowedIsUnauthorizedClient(ctx);
    if (inner === '/revoke/' && ctx.status === 200) {
      emptyRevocationAnswer(ctx);
      const hint = (await formOf(ctx)).token_type_hint;
      await audit(store, 'token.revoked', {
        app: entry.app.slug,
        actor: { ...currentActor(), type: 'client', id: entry.app.client_id },
        details: { hint: typeof hint === 'string' ? hint.slice(0, 40) : null },
      });
    }
    if (ctx.status === 401 && (ctx.body as { error?: string } | undefined)?.error === 'invalid_client')
      await limits.attempt([['client_auth', key]]);
  }

  /** The tokens in a 200 answer are written now, with the consume of what was redeemed (write-batch.ts). */
  async function commitIssuedTokens(ctx: Context) {
    if (ctx.status !== 200) return discardWriteBatch(ctx);
    try {
      await commitWriteBatch(store, ctx);
    } catch (error) {
      // The engine's answer for either (temporarily_unavailable as the engine's own calls get it: engine-unavailable.ts).
      const answer = error instanceof Unavailable ? temporarilyUnavailable(error) : error;
      if (!(answer instanceof errors.TemporarilyUnavailable || answer instanceof errors.InvalidGrant)) throw error;
      ctx.status = answer.status;
      if (error instanceof Unavailable) ctx.set(error.headers);
      ctx.body = { error: answer.error, error_description: answer.error_description };
    }
  }

  async function introspectToken(ctx: Context) {
    if (ctx.method !== 'POST') throw oauthError(405, 'invalid_request', 'the introspection endpoint only accepts POST', { Allow: 'POST' });
    const credentials = await readClientCredentials(ctx);
    const key = `${credentials.clientId}|${ctx.ip}`;
    const limited = await limits.check([['client_auth', key]]);
    if (!limited.allowed)
      throw oauthError(429, 'invalid_client', 'too many failed client authentications', {
        'Retry-After': String(limited.retryAfterSeconds),
      });
    const caller = authenticatedCaller(providers, credentials);
    if (!caller) {
      await limits.attempt([['client_auth', key]]);
      throw oauthError(401, 'invalid_client', 'client authentication failed', { 'WWW-Authenticate': 'Basic realm="introspection"' });
    }
    try {
      await introspect(ctx, caller);
    } finally {
      allowOrigin(ctx, allowedOrigins(caller.app));
    }
  }

  async function userinfo(ctx: Context, next: Next) {
    // In the Authorization header (Bearer or DPoP), or in a POSTed form (RFC 6750 §2.2).
    const form = ctx.method === 'POST' ? await formOf(ctx) : {};
    const accessToken = accessTokenOf(ctx) ?? (typeof form.access_token === 'string' ? form.access_token : undefined);
    const row = accessToken ? await store.oidcPayloads.find('AccessToken', accessToken, new Date()) : undefined;
    const entry = row?.client_id ? providers.byClientId.get(row.client_id) : undefined;
    if (!entry) throw invalidToken();
    // The engine looks the token up again: it gets this row instead of a second query.
    rememberRead(ctx, 'AccessToken', accessToken!, row!);
    return engineJson(ctx, next, entry, '/userinfo/');
  }

  const shared: Record<string, { methods: string; handle: (ctx: Context, next: Next) => Promise<void> }> = {
    // The one shared endpoint whose answer may be a page the engine writes (form_post): it gets the pages' policy.
    authorize: { methods: 'GET, POST', handle: (ctx, next) => withEnginePagePolicy(ctx, () => authorize(ctx, next)) },
    token: { methods: 'POST', handle: (ctx, next) => clientEndpoint(ctx, next, '/token/', 'token') },
    revoke: { methods: 'POST', handle: (ctx, next) => clientEndpoint(ctx, next, '/revoke/', 'revocation') },
    introspect: { methods: 'POST', handle: introspectToken },
    userinfo: { methods: 'GET, POST', handle: userinfo },
  };

  /** Discovery and JWKS: the engine writes them once per provider instance (a key rotation makes a new one). */
  async function published(ctx: Context, next: Next, entry: AppProvider, enginePath: string) {
    if (isPreflight(ctx)) return answerPreflight(ctx, (origin) => allowedOrigins(entry.app).includes(origin), 'GET');
    try {
      if (ctx.method === 'GET' && answerPublished(ctx, entry.provider, enginePath)) return;
      await runProvider(entry.provider, ctx, next, `${SHARED_PREFIX}/${entry.app.slug}`, enginePath);
      keepPublished(ctx, entry.provider, enginePath);
    } finally {
      allowOrigin(ctx, allowedOrigins(entry.app));
    }
  }

  /** End-session and the authorization's resume: pages, so the engine's own ones get the pages' policy. */
  async function pages(ctx: Context, next: Next, entry: AppProvider, enginePath: string) {
    if (enginePath.startsWith('/end-session')) await refuseUnstorableLogoutParams(ctx);
    try {
      const run = () => runProvider(entry.provider, ctx, next, `${SHARED_PREFIX}/${entry.app.slug}`, enginePath);
      await withEnginePagePolicy(ctx, () => (enginePath.startsWith('/authorize/') ? withBatchedWrites(ctx, run) : run()));
    } finally {
      noCors(ctx);
    }
  }

  /** An application's metadata at the RFC 8414 §3.1 location. */
  function wellKnown(ctx: Context, next: Next) {
    const [, document, slug] = INSERTED_WELL_KNOWN.exec(ctx.path) ?? [];
    const entry = slug === undefined ? undefined : providers.bySlug.get(slug);
    return entry ? published(ctx, next, entry, `/.well-known/${document}`) : next();
  }

  return function dispatchToProvider(ctx: Context, next: Next) {
    if (!ctx.path.startsWith(`${SHARED_PREFIX}/`)) return ctx.path.startsWith('/.well-known/') ? wellKnown(ctx, next) : next();
    // /application/o/{first}{inner}: a shared endpoint, or an application's slug and its path.
    const path = ctx.path.slice(SHARED_PREFIX.length + 1);
    const slash = path.indexOf('/');
    const first = slash === -1 ? path : path.slice(0, slash);
    const inner = slash === -1 ? '/' : path.slice(slash);
    const endpoint = Object.hasOwn(shared, first) ? shared[first] : undefined; // not the prototype's (`constructor`)
    if (endpoint && inner === '/') {
      if (first !== 'authorize' && isPreflight(ctx)) return answerPreflight(ctx, anyAppAllows, endpoint.methods);
      return endpoint.handle(ctx, next);
    }
    const entry = providers.bySlug.get(first);
    const enginePath = entry && engineInnerPath(inner);
    if (!entry || !enginePath) return next();
    return /^\/(jwks|\.well-known)/.test(enginePath) ? published(ctx, next, entry, enginePath) : pages(ctx, next, entry, enginePath);
  };
}
