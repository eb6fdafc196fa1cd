/**
 * Prepares OpenID Connect at start: the signing keys (one per algorithm in use, generated when missing), the cookie
 * keys, one provider per application (rebuilt when the stored keys are rotated, reload-keys.ts), and the middleware
 * that routes /application/o/… to them.
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import type { RateLimits } from '../domain/rate-limits.js';
import { ensureSigningKeys, loadSigningKeys, signingAlgsOf } from '../domain/signing-keys.js';
import { secretsFrom } from '../domain/secrets.js';
import type { ProviderSet } from './providers.js';
import { providersFollowingKeys } from './reload-keys.js';
import type { SigningKeyWatch } from './signing-key-watch.js';
import { dispatchOidc } from './endpoints/dispatch.js';

export interface Oidc {
  providers: ProviderSet;
  /** The parent Koa app must sign cookies with these same keys, or interactions fail. */
  cookieKeys: string[];
  /** The providers under /application/o/. */
  dispatch: Middleware;
  /** Rotations in the store: `keys.every(settings.keys.reload_seconds)` swaps new providers into `providers`. */
  keys: SigningKeyWatch;
}

export interface OidcParts {
  /** Where the engine sends the browser to sign in (the sign-in pages own that path). */
  interactionPath: (slug: string, uid: string) => string;
  limits: RateLimits;
}

export async function prepareOidc(settings: Settings, store: Store, logger: Logger, parts: OidcParts): Promise<Oidc> {
  await ensureSigningKeys(store, settings.secrets.key, signingAlgsOf(settings.applications));
  const keys = await loadSigningKeys(store, settings.secrets.key);
  const keysForCookies = secretsFrom(settings.secrets.key).cookieKeys();
  const { providers, keys: watch } = providersFollowingKeys({
    settings,
    store,
    keys,
    cookieKeys: keysForCookies,
    logger,
    interactionPath: parts.interactionPath,
  });
  return {
    providers,
    cookieKeys: keysForCookies,
    dispatch: dispatchOidc(providers, store, parts.limits, settings.device_flow.poll_interval_seconds) as Middleware,
    keys: watch,
  };
}
