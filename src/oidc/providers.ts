/**
 * One oidc-provider instance per application (the issuer is fixed per instance), all on the same adapter,
 * signing keys and cookie keys, so one browser session signs the user in to every application.
 */
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import type { ApplicationSettings } from '../settings/schema.js';
import { providerConfiguration, type ProviderParts } from './provider-config.js';
import { tokensIssued } from '../observability/metrics.js';
import { recordEndedSessions, replaceBackchannelSender } from './logout.js';
import { recordSessionDevices } from './session-devices.js';
import { everyApplication } from '../domain/account-client.js';
import { noteEngineError } from './engine-errors.js';
import { DEVICE_CODE_GRANT, usesDeviceFlow } from '../domain/applications.js';
import { DEVICE_AUTHORIZATION_PATH } from './device-paths.js';

export interface AppProvider {
  app: ApplicationSettings;
  provider: Provider;
}

export interface ProviderSet {
  bySlug: Map<string, AppProvider>;
  byClientId: Map<string, AppProvider>;
  cookieKeys: string[];
}

export const SHARED_PREFIX = '/application/o';
export const issuerOf = (baseUrl: string, slug: string) => `${baseUrl}${SHARED_PREFIX}/${slug}/`;

/**
 * The discovery document advertises the shared endpoints, not the per-app paths the engine would list, and the
 * pages' languages; the device authorization endpoint and grant only for an application that has the device_code grant.
 */
function advertiseSharedEndpoints(baseUrl: string, app: ApplicationSettings, locales: string[]) {
  return async function advertiseShared(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
    await next();
    if (ctx.oidc?.route !== 'discovery' || !ctx.body || typeof ctx.body !== 'object') return;
    const body = ctx.body as Record<string, unknown>;
    if (usesDeviceFlow(app)) body.device_authorization_endpoint = `${baseUrl}${DEVICE_AUTHORIZATION_PATH}`;
    else {
      delete body.device_authorization_endpoint;
      body.grant_types_supported = (body.grant_types_supported as string[] | undefined)?.filter((grant) => grant !== DEVICE_CODE_GRANT);
    }
    Object.assign(body, {
      authorization_endpoint: `${baseUrl}${SHARED_PREFIX}/authorize/`,
      token_endpoint: `${baseUrl}${SHARED_PREFIX}/token/`,
      userinfo_endpoint: `${baseUrl}${SHARED_PREFIX}/userinfo/`,
      revocation_endpoint: `${baseUrl}${SHARED_PREFIX}/revoke/`,
      // Ours (src/oidc/introspect.ts), not the engine's: it lists nothing about it by itself.
      introspection_endpoint: `${baseUrl}${SHARED_PREFIX}/introspect/`,
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      // The languages the sign-in pages come in (ui_locales picks one; src/i18n/choose-locale.ts).
      ui_locales_supported: locales,
    });
  };
}

/**
 * `idp serve` creates every algorithm's key at start (setup.ts); an `idp worker` only reads them, and may read the
 * keys before a serve has created the one an application asks for. The engine would only say
 * invalid_client_metadata when that application signs; this says what is missing, and no providers are built.
 */
function checkSigningKeyOf(app: ApplicationSettings, keys: ProviderParts['keys']): void {
  const alg = app.id_token_signed_response_alg;
  if (!keys.some((key) => key.alg === alg))
    throw new Error(`no ${alg} signing key for application "${app.slug}" yet: \`idp serve\` creates it at start`);
}

export function createProviders(parts: ProviderParts & { logger: Logger }): ProviderSet {
  const { settings, logger } = parts;
  const set: ProviderSet = { bySlug: new Map(), byClientId: new Map(), cookieKeys: parts.cookieKeys };
  const devices = recordSessionDevices(parts.store, logger); // one throttle for every application's engine
  for (const app of everyApplication(settings)) {
    checkSigningKeyOf(app, parts.keys);
    const provider = new Provider(issuerOf(settings.issuer.base_url, app.slug), providerConfiguration(app, parts));
    provider.proxy = settings.server.trust_proxy;
    provider.use(advertiseSharedEndpoints(settings.issuer.base_url, app, settings.i18n.locales) as never);
    provider.use(recordEndedSessions(parts.store, logger) as never);
    provider.use(devices as never);
    replaceBackchannelSender(provider);
    provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
      tokensIssued.inc({ grant_type: String(ctx.oidc.params?.grant_type ?? 'unknown') });
    });
    // Kept for the endpoints' rewording by class (endpoints/remap-engine-errors.ts).
    provider.on('authorization.error', noteEngineError);
    provider.on('grant.error', noteEngineError);
    provider.on('device_authorization.error', noteEngineError);
    provider.on('server_error', (ctx: KoaContextWithOIDC, error: Error) => {
      logger.error({ err: error, app: app.slug, route: ctx.oidc?.route }, 'OIDC request failed');
    });
    const entry = { app, provider };
    set.bySlug.set(app.slug, entry);
    set.byClientId.set(app.client_id, entry);
  }
  return set;
}
