/**
 * Prepares OpenID Connect at start: the signing key (generated on first start), the cookie keys, one provider
 * per application, and the middleware that routes /application/o/… to them.
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import type { RateLimits } from '../domain/rate-limits.js';
import { ensureSigningKey, loadSigningKeys } from '../domain/signing-keys.js';
import { secretsFrom } from '../domain/secrets.js';
import { createProviders, type ProviderSet } from './providers.js';
import { dispatchOidc } from './dispatch-oidc.js';

export interface Oidc {
  providers: ProviderSet;
  /** The parent Koa app must sign cookies with these same keys, or interactions fail. */
  cookieKeys: string[];
  /** The providers under /application/o/. */
  dispatch: Middleware;
}

export interface OidcParts {
  /** Where the engine sends the browser to sign in (the sign-in pages own that path). */
  interactionPath: (slug: string, uid: string) => string;
  limits: RateLimits;
}

export async function prepareOidc(settings: Settings, store: Store, logger: Logger, parts: OidcParts): Promise<Oidc> {
  await ensureSigningKey(store, settings.secrets.key);
  const keys = await loadSigningKeys(store, settings.secrets.key);
  const keysForCookies = secretsFrom(settings.secrets.key).cookieKeys();
  const providers = createProviders({ settings, store, keys, cookieKeys: keysForCookies, logger, interactionPath: parts.interactionPath });
  return { providers, cookieKeys: keysForCookies, dispatch: dispatchOidc(providers, store, parts.limits) as Middleware };
}
