/**
 * Logout-token signing for `idp worker`, which serves no HTTP: the applications' providers are built from the
 * settings and the stored keys but never mounted. Built on first use (and again after a failure), so a worker
 * may start before the first `idp serve` has generated the signing key.
 */
import type { Logger } from 'pino';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import type { SignLogoutToken } from '../domain/logout.js';
import { loadSigningKeys } from '../domain/signing-keys.js';
import { secretsFrom } from '../domain/secrets.js';
import { createProviders } from './providers.js';
import { logoutTokenSigner } from './logout-token.js';

export function workerLogoutSigner(settings: Settings, store: Store, logger: Logger): SignLogoutToken {
  let ready: Promise<SignLogoutToken> | undefined;
  const build = async () => {
    const keys = await loadSigningKeys(store, settings.secrets.key);
    if (!keys.length) throw new Error('no signing key yet (start `idp serve` once)');
    // These providers only sign: they are never mounted, so no browser is ever sent to an interaction.
    const interactionPath = () => '/';
    return logoutTokenSigner(createProviders({ settings, store, keys, cookieKeys: secretsFrom(settings.secrets.key).cookieKeys(), logger, interactionPath }));
  };
  return async (clientId, sub, sid) => {
    ready ??= build().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return (await ready)(clientId, sub, sid);
  };
}
