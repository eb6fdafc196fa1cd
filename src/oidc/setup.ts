/**
 * Prepares OpenID Connect at start: the signing key (generated on first start), each application's
 * access group, and one provider per application.
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { ensureSigningKey, loadSigningKeys } from '../domain/signing-keys.js';
import { ensureAccessGroups } from '../domain/applications.js';
import { interactionMiddleware } from '../interactions/router.js';
import { inProcessSignInServices, type SignInServices } from '../interactions/services.js';
import { cookieKeys } from './cookie-keys.js';
import { createProviders, type ProviderSet } from './providers.js';
import { dispatchOidc } from './dispatch-oidc.js';

export interface Oidc {
  providers: ProviderSet;
  /** The parent Koa app must sign cookies with these same keys, or interactions fail. */
  cookieKeys: string[];
  /** Sign-in pages, avatars, stylesheet, then the providers under /application/o/. */
  middleware: Middleware[];
}

/** `signIn`: rate limits and mail on Redis (`idp serve`); omitted, in-process counters and direct mail delivery. */
export async function setupOidc(settings: Settings, store: Store, logger: Logger, signIn?: SignInServices): Promise<Oidc> {
  await ensureSigningKey(store, settings.secrets.key);
  const keys = await loadSigningKeys(store, settings.secrets.key);
  await ensureAccessGroups(store, settings.applications);
  const keysForCookies = cookieKeys(settings.secrets.key);
  const providers = createProviders({ settings, store, keys, cookieKeys: keysForCookies, logger });
  const services = signIn ?? inProcessSignInServices(settings, logger.child({ component: 'mail' }));
  return {
    providers,
    cookieKeys: keysForCookies,
    middleware: [interactionMiddleware(providers, store, settings, services), dispatchOidc(providers, store, services.limits) as Middleware],
  };
}
