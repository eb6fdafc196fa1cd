/**
 * Providers that follow the stored signing keys. The engine takes `jwks` at construction only, so a rotation
 * (seen by signing-key-watch.ts) builds a whole new provider per application and swaps them into the one
 * ProviderSet that the endpoints (endpoints/dispatch.ts), the sign-in pages and the logout signer read. Everything but the keys is
 * built from the same parts: same adapter (sessions, grants and tokens live in the database), same cookie keys
 * (the browser's SSO session stays valid), same settings.
 */
import type { Logger } from 'pino';
import type { SigningJwk } from '../domain/signing-keys.js';
import { createProviders, type ProviderSet } from './providers.js';
import type { ProviderParts } from './provider-config.js';
import { signingKeyWatch, type SigningKeyWatch } from './signing-key-watch.js';

/**
 * Replaces every application's entry in both maps in one synchronous pass: no request can see one map swapped
 * and the other not, and a request already under way holds its entry (and so its provider) until it ends.
 * Flows that span requests (authorize → sign-in pages → resume → token) cross over safely: what they carry
 * lives in the shared adapter and in cookies signed with the unchanged cookie keys.
 */
export function swapProviders(target: ProviderSet, fresh: ProviderSet): void {
  for (const [slug, entry] of fresh.bySlug) {
    target.bySlug.set(slug, entry);
    target.byClientId.set(entry.app.client_id, entry);
  }
}

export interface KeyedProviders {
  /** Stable: the maps inside are updated in place, so whoever holds the set sees the current providers. */
  providers: ProviderSet;
  keys: SigningKeyWatch;
}

/** `parts.keys` is the set to start with; empty (a worker before the first `idp serve`) leaves the maps empty until a check finds keys. */
export function providersFollowingKeys(parts: ProviderParts & { logger: Logger }): KeyedProviders {
  const providers: ProviderSet = { bySlug: new Map(), byClientId: new Map(), cookieKeys: parts.cookieKeys };
  // Built completely before the swap: a construction error leaves the providers in use untouched.
  const install = (keys: SigningJwk[]) => swapProviders(providers, createProviders({ ...parts, keys }));
  if (parts.keys.length) install(parts.keys);
  const keys = signingKeyWatch({
    store: parts.store,
    secret: parts.settings.secrets.key,
    current: parts.keys.map((key) => key.kid),
    apply: install,
    logger: parts.logger,
  });
  return { providers, keys };
}
