/**
 * Logout-token signing for `idp worker`, which serves no HTTP: the applications' providers are built from the
 * settings and the stored keys but never mounted. Loaded on first use (and again after a failure), so a worker
 * may start before the first `idp serve` has generated the signing key; after that, a signing checks the stored
 * key ids when keys.reload_seconds have passed since the last check, so a rotation reaches the worker without a
 * restart and without a timer of its own.
 */
import type { Logger } from 'pino';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import type { SignLogoutToken } from '../domain/logout.js';
import { secretsFrom } from '../domain/secrets.js';
import { logoutTokenSigner } from './logout-token.js';
import { providersFollowingKeys } from './reload-keys.js';

export function workerLogoutSigner(settings: Settings, store: Store, logger: Logger): SignLogoutToken {
  // These providers only sign: they are never mounted, so no browser is ever sent to an interaction.
  const interactionPath = () => '/';
  const { providers, keys } = providersFollowingKeys({
    settings,
    store,
    keys: [],
    cookieKeys: secretsFrom(settings.secrets.key).cookieKeys(),
    logger,
    interactionPath,
  });
  const sign = logoutTokenSigner(providers);
  const reloadMs = settings.keys.reload_seconds * 1000;
  let checkedAt = 0;

  /** Before the first key is loaded: always; after: at most every reload_seconds (never with 0). */
  async function refreshWhenDue(): Promise<void> {
    const loaded = keys.kids.length > 0;
    if (loaded && (reloadMs <= 0 || Date.now() - checkedAt < reloadMs)) return;
    checkedAt = Date.now(); // a failed check too: the next signings do not each wait on a database that is away
    try {
      await keys.check();
    } catch (error) {
      if (!loaded) throw error;
      // The keys in use still sign tokens every receiver can verify: deliver now, check again next time.
      logger.warn({ err: error }, 'checking the stored signing keys failed; signing with the keys in use');
    }
    if (!keys.kids.length) throw new Error('no signing key yet (start `idp serve` once)');
  }

  return async (clientId, sub, sid) => {
    await refreshWhenDue();
    return sign(clientId, sub, sid);
  };
}
