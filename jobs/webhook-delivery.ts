/**
 * Delivers one webhook (spec §6.1): POST the stored body, signed with the app's secret, with the event id
 * that stays the same on every attempt. 2xx = delivered; 5xx, 429, timeouts and connection errors are
 * retried by BullMQ (backoff from config); any other status fails at once. Every attempt is logged.
 */
import { createHmac } from 'node:crypto';
import type { Job } from 'bullmq';
import type { Settings } from '../src/settings/schema.js';
import type { Store } from '../src/store/contract.js';
import type { DeliveryJob } from '../src/queue/queues.js';
import { postWithTimeout } from './http-attempt.js';
import { abandonDelivery, positionOf, settleAttempt } from './settle-attempt.js';

export const signBody = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export function webhookProcessor(store: Store, settings: Settings) {
  const apps = new Map(settings.applications.map((app) => [app.slug, app]));

  return async function deliverWebhook(job: Job<DeliveryJob>): Promise<void> {
    const delivery = await store.events.findDelivery(job.data.deliveryId);
    if (!delivery || delivery.status === 'delivered') return;
    const event = await store.events.find(delivery.event_id);
    const webhook = apps.get(delivery.app)?.webhook;
    const position = positionOf(delivery.attempts, job);
    if (!event || !webhook?.secret) return abandonDelivery(store, delivery.id, position.attempt, 'the application has no webhook configured any more');

    const result = await postWithTimeout(delivery.target, {
      body: event.body,
      headers: {
        'Content-Type': 'application/json',
        'X-Service-Signature': signBody(webhook.secret, event.body),
        'X-Service-Event-Id': event.id,
        'User-Agent': 'identity-service-webhooks',
      },
      timeoutMs: settings.webhooks.timeout_seconds * 1000,
      allowInsecureLoopback: settings.webhooks.allow_insecure_loopback,
    });
    await settleAttempt(store, delivery.id, position, result);
  };
}
