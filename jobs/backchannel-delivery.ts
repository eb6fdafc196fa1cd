/**
 * Delivers one backchannel logout (spec §2.5, §6.2): POST application/x-www-form-urlencoded with the field
 * logout_token, a token signed afresh for this attempt (new jti, iat, exp). 2xx = delivered; 5xx, 429,
 * timeouts and connection errors are retried by BullMQ with the webhook settings; other answers fail at once.
 */
import type { Job } from 'bullmq';
import type { Settings } from '../src/settings/schema.js';
import type { Store } from '../src/store/contract.js';
import type { DeliveryJob } from '../src/queue/queues.js';
import { readBackchannelLogout, type SignLogoutToken } from '../src/domain/logout.js';
import { postWithTimeout } from './http-attempt.js';
import { abandonDelivery, positionOf, settleAttempt } from './settle-attempt.js';

export function backchannelProcessor(store: Store, settings: Settings, sign: SignLogoutToken) {
  const apps = new Map(settings.applications.map((app) => [app.slug, app]));

  return async function deliverBackchannel(job: Job<DeliveryJob>): Promise<void> {
    const found = (await store.events.findDeliveriesWithEvents([job.data.deliveryId])).get(job.data.deliveryId);
    if (!found || found.delivery.status === 'delivered') return;
    const { delivery, event } = found;
    const logout = event ? readBackchannelLogout(event.type, event.body) : undefined;
    const app = apps.get(delivery.app);
    const target = logout?.targets.find((entry) => entry.client_id === app?.client_id);
    const position = positionOf(delivery.attempts, job);
    if (!logout || !target || !app?.backchannel_logout_uri) {
      return abandonDelivery(store, delivery.id, position.attempt, 'the application has no backchannel logout configured any more');
    }

    let token: string;
    try {
      token = await sign(app.client_id, logout.sub, target.sid);
    } catch (error) {
      // No usable signing key yet (e.g. a worker started before the first `idp serve`): try again later.
      const message = `cannot sign the logout token: ${(error as Error).message}`;
      await store.events.recordAttempt(delivery.id, {
        attempt: position.attempt,
        status_code: null,
        error: message,
        duration_ms: 0,
        status: position.last ? 'failed' : 'pending',
      });
      throw new Error(message);
    }

    const result = await postWithTimeout(delivery.target, {
      body: new URLSearchParams({ logout_token: token }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'identity-service-backchannel-logout' },
      timeoutMs: settings.webhooks.timeout_seconds * 1000,
      allowInsecureLoopback: settings.webhooks.allow_insecure_loopback,
    });
    await settleAttempt(store, delivery, position, result);
  };
}
