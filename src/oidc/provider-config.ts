/**
 * The engine configuration of one application's provider. Every protocol rule of the spec is a setting
 * here (code flow, PKCE S256, openid required, per-app scopes and TTLs, refresh rotation); the engine does
 * the protocol.
 */
import { errors, type ClientMetadata, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { ApplicationSettings, Settings } from '../settings/schema.js';
import type { Store, UserRow } from '../store/contract.js';
import { audit, currentActor } from '../domain/audit.js';
import { signIns } from '../observability/metrics.js';
import type { SigningJwk } from '../domain/signing-keys.js';
import { SIGNING_ALGS } from '../settings/signing-algorithms.js';
import { applicationType, grantableScopes, userAllowedIn } from '../domain/applications.js';
import { forEngine } from './engine-unavailable.js';
import { inputProblem } from '../domain/input-text.js';
import { adapterFactory } from './engine-storage/adapter.js';
import { findAccount } from './account.js';
import { logoutSource, postLogoutSuccessSource } from './logout-pages.js';
import { devicePages } from './device-pages.js';
import { DEVICE_AUTHORIZATION_PATH, DEVICE_PAGE_PATH } from './device-paths.js';
import { renderEngineError } from './render-engine-error.js';
import { interactionPolicyFor } from './second-factor-policy.js';

export interface ProviderParts {
  settings: Settings;
  store: Store;
  keys: SigningJwk[];
  cookieKeys: string[];
  /** Where the engine sends the browser to sign in: `/if/flow/{slug}/{uid}/`. */
  interactionPath: (slug: string, uid: string) => string;
}

const CODE_TTL = 60; // spec §8: fixed, not configurable

/** Parameters with NUL characters would be stored with the interaction: refused as invalid_request. */
function rejectUnstorableParams(ctx: KoaContextWithOIDC) {
  for (const [name, value] of Object.entries(ctx.oidc.params ?? {})) {
    if (inputProblem(value)) throw new errors.InvalidRequest(`the ${name} parameter contains characters that are not allowed`);
  }
}

/** The scope as the request sent it: the query of an authorization (the dispatcher turns a POST into a GET), the form of a device authorization. */
function askedScope(ctx: KoaContextWithOIDC): string[] {
  const form = (ctx.oidc as unknown as { body?: Record<string, unknown> }).body;
  const scope = ctx.oidc.route === 'authorization' ? ctx.query.scope : form?.scope;
  return typeof scope === 'string' ? scope.split(' ') : [];
}

/**
 * offline_access, asked for by the request as sent. An application that may not refresh gets invalid_scope, as for
 * any scope it may not use. One that may is granted it, with or without prompt=consent: OIDC Core §11 waives the
 * consent prompt where "other conditions" permit offline access, and the operator registering the application with
 * refresh tokens is that condition (docs/decisions.md). The engine drops it before this hook unless prompt=consent,
 * so it is put back into the request here.
 */
function honourOfflineAccess(ctx: KoaContextWithOIDC, app: ApplicationSettings) {
  const asked = askedScope(ctx);
  if (!asked.includes('offline_access')) return;
  if (!grantableScopes(app).includes('offline_access'))
    throw new errors.InvalidScope('offline_access needs the refresh_token grant, which this application does not have', 'offline_access');
  const params = ctx.oidc.params as { scope?: string };
  const kept = String(params.scope ?? '').split(' ');
  if (!kept.includes('offline_access')) params.scope = [...kept, 'offline_access'].join(' ');
}

/** prompt=login, or a max_age the session is older than: the engine will ask someone to sign in. */
function asksForSignIn(ctx: KoaContextWithOIDC): boolean {
  const { oidc } = ctx;
  if (oidc.result?.login) return false;
  const maxAge = oidc.params!.max_age as number | undefined;
  return oidc.prompts.has('login') || (maxAge !== undefined && oidc.session!.past(maxAge));
}

/**
 * Spec §5 on SSO sign-ins too; and first-party apps get their grant without a consent screen. When the
 * signed-in user may not use the application but the request asks for a sign-in, no grant is loaded and the
 * sign-in page lets another user in (whose access is checked when they finish).
 */
function loadGrant(app: ApplicationSettings, store: Store) {
  return (ctx: KoaContextWithOIDC) =>
    forEngine(async () => {
      const { client, session, params, provider } = ctx.oidc;
      const accountId = session!.accountId!;
      const { user, allowed } = await userAllowedIn(store, app, accountId);
      if (!allowed) {
        if (asksForSignIn(ctx)) return undefined;
        await recordSessionDenial(store, app, accountId, user);
        throw new errors.AccessDenied('you are not allowed to use this application');
      }
      const grantId = ctx.oidc.result?.consent?.grantId ?? session!.grantIdFor(client!.clientId);
      const grant = (grantId && (await provider.Grant.find(grantId))) || new provider.Grant({ clientId: client!.clientId, accountId });
      const grantable = grantableScopes(app);
      const requested = String(params!.scope ?? '')
        .split(' ')
        .filter((scope) => grantable.includes(scope));
      grant.addOIDCScope(requested.join(' '));
      await grant.save();
      askForSessionClaims(ctx);
      return grant;
    });
}

/**
 * A signed-in person turned away without any page (their single sign-on session, another application's): recorded
 * and counted like a denial at the end of a sign-in, so the trail shows every refusal, not only the first one.
 */
async function recordSessionDenial(store: Store, app: ApplicationSettings, accountId: string, user: UserRow | undefined) {
  const reason = !user ? 'unknown_user' : !user.is_active ? 'inactive' : 'access_group';
  signIns.inc({ outcome: 'denied', method: 'session' });
  await audit(store, 'sign_in.denied', {
    user: accountId,
    app: app.slug,
    actor: { ...currentActor(), type: 'user', id: accountId },
    details: { method: ['session'], reason },
  });
}

/**
 * Every ID token says when (auth_time), how (amr: ["pwd"] or ["pwd", "otp"]) and in which session (sid) the user signed in,
 * not only when max_age or a backchannel logout asked: the request is made to ask for them.
 */
function askForSessionClaims(ctx: KoaContextWithOIDC) {
  const oidc = ctx.oidc as unknown as { claims: { id_token?: Record<string, unknown> } };
  oidc.claims.id_token = { auth_time: { essential: true }, amr: null, sid: null, ...oidc.claims.id_token };
}

/** The application as the engine's one client: confidential (a secret) or public (none; native when its redirects say so). */
function clientMetadata(app: ApplicationSettings): ClientMetadata {
  return {
    client_id: app.client_id,
    ...(app.client_type === 'public'
      ? { token_endpoint_auth_method: 'none' }
      : {
          client_secret: app.client_secret!,
          token_endpoint_auth_method: 'client_secret_basic', // the engine accepts client_secret_post as well
        }),
    client_name: app.name,
    application_type: applicationType(app),
    redirect_uris: app.redirect_uris,
    post_logout_redirect_uris: app.post_logout_redirect_uris,
    ...(app.backchannel_logout_uri ? { backchannel_logout_uri: app.backchannel_logout_uri } : {}),
    grant_types: app.grant_types,
    response_types: app.grant_types.includes('authorization_code') ? ['code'] : [],
    // Backchannel logout tokens too: the engine signs them with the client's ID-token algorithm.
    id_token_signed_response_alg: app.id_token_signed_response_alg,
    scope: [...grantableScopes(app), ...app.api_scopes].join(' '),
  };
}

export function providerConfiguration(app: ApplicationSettings, parts: ProviderParts): Configuration {
  const { settings, store } = parts;
  const ttl = { ...settings.tokens, ...app.tokens };
  return {
    adapter: adapterFactory(store),
    clients: [clientMetadata(app)],
    jwks: { keys: parts.keys as never },
    cookies: { keys: parts.cookieKeys },
    findAccount: findAccount(store, app, settings.issuer.base_url),
    // offline_access where the application may refresh: advertised, and granted when asked (grantableScopes).
    scopes: [
      'openid',
      'profile',
      'email',
      ...(grantableScopes(app).includes('offline_access') ? ['offline_access'] : []),
      ...app.api_scopes,
    ],
    claims: {
      // Standalone claims every ID token carries (asked for by loadGrant): when, how and in which session.
      auth_time: null,
      amr: null,
      sid: null,
      openid: ['sub'],
      profile: ['name', 'given_name', 'family_name', 'picture'],
      email: ['email', 'email_verified'],
    },
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    pkce: { required: () => true },
    // A public application authenticates with none (its client_id and PKCE); a confidential one only with its secret.
    clientAuthMethods: app.client_type === 'public' ? ['none'] : ['client_secret_basic', 'client_secret_post'],
    // Discovery lists those of them that have a stored key (RS256 always; the others once an application asks).
    enabledJWA: { idTokenSigningAlgValues: [...SIGNING_ALGS] },
    features: {
      devInteractions: { enabled: false },
      // Ends the SSO session without a prompt (logout-pages.ts). Backchannel: metadata and discovery from the
      // engine, delivery by our queue (logout.ts replaces the engine's sender).
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      backchannelLogout: { enabled: true },
      pushedAuthorizationRequests: { enabled: false },
      userinfo: { enabled: true },
      // Machine clients (client_type confidential, grant_types client_credentials): tokens that name the client only.
      // On for every application, so one without the grant hears unauthorized_client (its grant_types say no).
      clientCredentials: { enabled: true },
      // RFC 7009 at the shared /application/o/revoke/: a client revokes its own tokens; a refresh token takes its grant along.
      revocation: { enabled: true },
      // Sender-constrained tokens (RFC 9449): the shared token and UserInfo endpoints accept DPoP proofs.
      dPoP: { enabled: true },
      // RFC 8628 for applications with the device_code grant (the others hear unauthorized_client, as for
      // client_credentials). User codes of 8 letters without vowels or look-alikes (20^8), typed case- and
      // dash-insensitively; our pages (device-pages.ts); guessing limited by the dispatcher (endpoints/device-steps.ts).
      deviceFlow: { enabled: true, charset: 'base-20', mask: '****-****', ...devicePages(app, store) },
    },
    // CORS is decided per application by the endpoints (endpoints/cors-steps.ts, allowed_origins), which removes what the engine would allow beyond it.
    clientBasedCORS: () => true,
    // Runs after redirect_uri validation, so these errors are redirected to the application (a device authorization
    // answers them as JSON). The device's request is stored with its code and never checked again: checked here too.
    extraParams: {
      async scope(ctx: KoaContextWithOIDC, value: string | undefined) {
        if (ctx.oidc.route !== 'authorization' && ctx.oidc.route !== 'device_authorization') return;
        rejectUnstorableParams(ctx);
        // The engine treats a request without openid as plain OAuth; the spec requires it.
        if (
          !String(value ?? '')
            .split(' ')
            .includes('openid')
        )
          throw new errors.InvalidScope('the openid scope is required', 'openid');
        honourOfflineAccess(ctx, app);
      },
    },
    interactions: { policy: interactionPolicyFor(app), url: (_ctx, interaction) => parts.interactionPath(app.slug, interaction.uid) },
    loadExistingGrant: loadGrant(app, store),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Refresh tokens live their own 30 days, not as long as the browser session.
    expiresWithSession: async () => false,
    ttl: {
      AuthorizationCode: CODE_TTL,
      AccessToken: ttl.access_token_ttl,
      ClientCredentials: ttl.access_token_ttl,
      IdToken: ttl.id_token_ttl,
      // Counted from the first issue: rotation hands out a new token, not a new 30 days.
      RefreshToken: (_ctx, token) => Math.max(1, ttl.refresh_token_ttl - (token as { totalLifetime(): number }).totalLifetime()),
      // A grant must outlive the refresh tokens issued from it.
      Grant: ttl.refresh_token_ttl,
      Interaction: 3600,
      DeviceCode: settings.device_flow.code_ttl_seconds,
      Session: 14 * 24 * 3600,
    },
    routes: {
      authorization: '/authorize',
      token: '/token/',
      userinfo: '/userinfo/',
      jwks: '/jwks/',
      end_session: '/end-session/',
      revocation: '/revoke/',
      // Mounted at the origin (device-paths.ts): the URLs the engine builds from these are the public ones.
      device_authorization: DEVICE_AUTHORIZATION_PATH,
      code_verification: DEVICE_PAGE_PATH,
    },
    renderError: renderEngineError,
  };
}
