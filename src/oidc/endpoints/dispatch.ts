/**
 * Routes /application/o/… to the application's provider, and runs each endpoint as a table of small steps, in
 * order (oidc-provider's actions/authorization/index.js habit): each step is a named middleware of its own file.
 * Shared endpoints find the application by client_id (authorize, token, revoke, introspect) or by the access
 * token's client (userinfo); per-application ones by the slug (discovery, JWKS, end-session, the authorization's
 * resume), as is the discovery document at its RFC 8414 location (/.well-known/…/application/o/{slug}). The device
 * pages at /device/ (RFC 8628) by the typed code or the resumed sign-in (endpoints/device-steps.ts). Every path
 * answers with or without its trailing slash.
 */
import compose from 'koa-compose';
import type { Context, Middleware, Next } from 'koa';
import type { Store } from '../../store/contract.js';
import type { RateLimits } from '../../domain/rate-limits.js';
import { allowedOrigins } from '../../domain/applications.js';
import { answerPreflight, isPreflight } from '../cors.js';
import { answerPublished, keepPublished } from '../published-documents.js';
import { SHARED_PREFIX, type AppProvider, type ProviderSet } from '../providers.js';
import { findAuthorizingClient, findCallingClient, findTokenApplication, readCaller } from './find-application.js';
import { onlyPost } from './only-post.js';
import { limitClientAuth } from './limit-client-auth.js';
import { allowApplicationOrigins, withoutCors } from './cors-steps.js';
import { enginePagePolicy, refuseUnstorableLogoutParams, repostAsGet } from './authorization-steps.js';
import { checkMachineClientScopes, introspectToken } from './client-steps.js';
import { writeAuthorization, writeIssuedTokens } from './write-unit-of-work.js';
import { remapEngineErrors } from './remap-engine-errors.js';
import { auditRevocation } from './audit-revocation.js';
import { runEngine } from './run-engine.js';
import { emptyRevocationAnswer, sayWhenToRetry } from './json-answers.js';
import { deviceApplications, findDeviceApplication, limitUserCodes, slowDownPolling, tellPollInterval } from './device-steps.js';
import { DEVICE_AUTHORIZATION_PATH, DEVICE_PAGE_PATH } from '../device-paths.js';
import { applicationOf, type EndpointContext, type Step } from './state.js';

interface Endpoint {
  /** Allowed methods, for CORS preflights. */
  methods: string;
  run: Middleware;
}

const endpoint = (methods: string, steps: Step[]): Endpoint => ({ methods, run: compose(steps as Middleware[]) });

/**
 * RFC 8414 §3.1: an issuer with a path has its metadata at /.well-known/{document} followed by that path, without
 * the final slash: /.well-known/oauth-authorization-server/application/o/{slug}. The same document as the issuer's
 * own {issuer}.well-known/… paths; openid-configuration is inserted too, as some clients try that first.
 */
const INSERTED_WELL_KNOWN = /^\/\.well-known\/(openid-configuration|oauth-authorization-server)\/application\/o\/([^/]+)\/?$/;

/** Per-application paths the engine serves, with the trailing slash it expects; anything else is not found. */
function engineInnerPath(inner: string): string | undefined {
  if (/^\/\.well-known\/(openid-configuration|oauth-authorization-server)\/?$/.test(inner)) return inner.replace(/\/$/, '');
  if (/^\/jwks\/?$/.test(inner)) return '/jwks/';
  if (/^\/end-session\/?$/.test(inner)) return '/end-session/';
  if (/^\/end-session\/+(confirm|success)\/?$/.test(inner)) return inner.replace(/\/+$/, '');
  if (/^\/authorize\/[^/]+\/?$/.test(inner)) return inner.replace(/\/$/, ''); // the resume after the sign-in pages
  return undefined;
}

/** A device page's path as the engine serves it (/device/ and the resume /device/{uid}); anything else is not found. */
function devicePagePath(path: string): string | undefined {
  if (path === '/device' || path === DEVICE_PAGE_PATH) return DEVICE_PAGE_PATH;
  return /^\/device\/[A-Za-z0-9_-]{1,64}\/?$/.test(path) ? path.replace(/\/$/, '') : undefined;
}

/** `pollIntervalSeconds`: how often a device may poll the token endpoint (settings.device_flow). */
export function dispatchOidc(providers: ProviderSet, store: Store, limits: RateLimits, pollIntervalSeconds: number) {
  const shared: Record<string, Endpoint> = {
    authorize: endpoint('GET, POST', [
      enginePagePolicy,
      findAuthorizingClient(providers),
      withoutCors,
      repostAsGet,
      writeAuthorization(store),
      remapEngineErrors,
      runEngine('/authorize', 'application'),
    ]),
    token: endpoint('POST', [
      onlyPost('token'),
      findCallingClient(providers),
      limitClientAuth(limits),
      checkMachineClientScopes,
      allowApplicationOrigins,
      slowDownPolling(limits, pollIntervalSeconds),
      remapEngineErrors,
      sayWhenToRetry,
      writeIssuedTokens(store),
      runEngine('/token/'),
    ]),
    // RFC 8628 §3.1, mounted at the origin (device-paths.ts): the verification URI it answers is {base_url}/device/.
    device: endpoint('POST', [
      onlyPost('device authorization'),
      findCallingClient(providers),
      limitClientAuth(limits),
      allowApplicationOrigins,
      remapEngineErrors,
      tellPollInterval(pollIntervalSeconds),
      sayWhenToRetry,
      runEngine(DEVICE_AUTHORIZATION_PATH, 'origin'),
    ]),
    revoke: endpoint('POST', [
      onlyPost('revocation'),
      findCallingClient(providers),
      limitClientAuth(limits),
      allowApplicationOrigins,
      auditRevocation(store),
      emptyRevocationAnswer,
      sayWhenToRetry,
      runEngine('/revoke/'),
    ]),
    introspect: endpoint('POST', [
      onlyPost('introspection'),
      readCaller,
      limitClientAuth(limits),
      allowApplicationOrigins,
      introspectToken(providers, store),
    ]),
    userinfo: endpoint('GET, POST', [
      findTokenApplication(providers, store),
      allowApplicationOrigins,
      sayWhenToRetry,
      runEngine('/userinfo/'),
    ]),
  };
  const anyAppAllows = (origin: string) => [...providers.bySlug.values()].some((entry) => allowedOrigins(entry.app).includes(origin));

  const atApplication = runEngine(undefined, 'application');
  /** Discovery and JWKS: the engine writes them once per provider instance (a key rotation makes a new one). */
  const publish: Step = async function publish(ctx, next) {
    const { provider } = applicationOf(ctx);
    const path = ctx.state.enginePath!;
    if (ctx.method === 'GET' && answerPublished(ctx, provider, path)) return;
    await atApplication(ctx, next);
    keepPublished(ctx, provider, path);
  };
  const answerApplicationPreflight: Step = async function answerApplicationPreflight(ctx, next) {
    if (!isPreflight(ctx)) return next();
    const { app } = applicationOf(ctx);
    answerPreflight(ctx, (origin) => allowedOrigins(app).includes(origin), 'GET');
  };
  const perApplication = {
    published: compose([answerApplicationPreflight, allowApplicationOrigins, publish] as Middleware[]),
    endSession: compose([enginePagePolicy, withoutCors, refuseUnstorableLogoutParams, atApplication] as Middleware[]),
    resume: compose([enginePagePolicy, withoutCors, writeAuthorization(store), atApplication] as Middleware[]),
  };
  /** The device pages: the engine's code verification and its resume, of the application the code belongs to. */
  const devicePages = compose([
    enginePagePolicy,
    withoutCors,
    limitUserCodes(limits),
    writeAuthorization(store),
    findDeviceApplication(providers, store),
    runEngine(undefined, 'origin'),
  ] as Middleware[]);
  const kindOf = (enginePath: string) =>
    /^\/(jwks|\.well-known)/.test(enginePath) ? 'published' : enginePath.startsWith('/end-session') ? 'endSession' : 'resume';

  /** An application's metadata at the RFC 8414 §3.1 location. */
  function wellKnown(ctx: Context, next: Next) {
    const [, document, slug] = INSERTED_WELL_KNOWN.exec(ctx.path) ?? [];
    const application = slug === undefined ? undefined : providers.bySlug.get(slug);
    if (!application) return next();
    Object.assign((ctx as EndpointContext).state, { application, enginePath: `/.well-known/${document}` });
    return perApplication.published(ctx, next);
  }

  /** /device/…: only while an application signs in devices. */
  function devicePage(ctx: Context, next: Next) {
    const enginePath = devicePagePath(ctx.path);
    if (!enginePath || !deviceApplications(providers).length) return next();
    (ctx as EndpointContext).state.enginePath = enginePath;
    return devicePages(ctx, next);
  }

  return function dispatchToProvider(ctx: Context, next: Next) {
    if (!ctx.path.startsWith(`${SHARED_PREFIX}/`)) {
      if (ctx.path.startsWith('/.well-known/')) return wellKnown(ctx, next);
      return ctx.path.startsWith('/device') ? devicePage(ctx, next) : next();
    }
    // /application/o/{first}{inner}: a shared endpoint, or an application's slug and its path.
    const path = ctx.path.slice(SHARED_PREFIX.length + 1);
    const slash = path.indexOf('/');
    const first = slash === -1 ? path : path.slice(0, slash);
    const inner = slash === -1 ? '/' : path.slice(slash);
    const sharedEndpoint = Object.hasOwn(shared, first) ? shared[first] : undefined; // not the prototype's (`constructor`)
    if (sharedEndpoint && inner === '/') {
      if (first !== 'authorize' && isPreflight(ctx)) return answerPreflight(ctx, anyAppAllows, sharedEndpoint.methods);
      return sharedEndpoint.run(ctx, next);
    }
    const application: AppProvider | undefined = providers.bySlug.get(first);
    const enginePath = application && engineInnerPath(inner);
    if (!application || !enginePath) return next();
    Object.assign((ctx as EndpointContext).state, { application, enginePath });
    return perApplication[kindOf(enginePath)](ctx, next);
  };
}
