/**
 * idp_queue_jobs{state="failed"} counts deliveries that gave up and were not sent again: a redelivery takes the
 * failed job out, so after it succeeds the gauge is back where it was (it stayed at 1 before).
 */
import { registry } from '../../src/observability/metrics.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { webhookSettings } from '../helpers/webhooks.js';

/** The gauge as a scrape reads it (its collect asks the queue). */
async function failedJobs(): Promise<number> {
  const gauge = registry.getSingleMetric('idp_queue_jobs')!;
  const { values } = await gauge.get();
  return values.find((value) => value.labels.state === 'failed')?.value ?? 0;
}

let receiver: Receiver;
let s: TestServer;
beforeAll(async () => {
  receiver = await startReceiver();
  const app = {
    slug: 'wiki',
    name: 'Wiki',
    client_id: 'wiki',
    client_secret: 'secret-secret-secret',
    redirect_uris: ['http://127.0.0.1/cb'],
    webhook: { url: receiver.url, secret: 'whsec-test-0123456789abcdef' },
  };
  s = await startTestServer(
    'pglite',
    webhookSettings([app], { webhooks: { timeout_seconds: 1, retries: 0, backoff_seconds: 0.05, allow_insecure_loopback: true } }),
    {
      workers: true,
    },
  );
});
afterAll(async () => {
  await s?.close();
  await receiver?.close();
});

test('a failed delivery counts as a failed job until it is redelivered; after a successful redelivery it no longer does', async () => {
  expect(await failedJobs()).toBe(0);
  receiver.respond = () => 503;
  const user = (await s.api('/api/v3/core/users/', { json: { username: 'x@example.com', email: 'x@example.com', name: 'X' } })).body;
  await s.api(`/api/v3/core/users/${user.pk}/`, { method: 'PATCH', json: { name: 'X Renamed' } }); // user_updated
  await receiver.waitFor(1);
  const delivery = await eventually('the delivery failed', async () => {
    const failed = (await s.api('/api/v3/events/deliveries/?status=failed')).body.results[0];
    return failed && (await failedJobs()) === 1 ? failed : undefined;
  });

  receiver.respond = () => 200;
  expect((await s.api(`/api/v3/events/deliveries/${delivery.id}/redeliver/`, { method: 'POST' })).status).toBe(202);
  await eventually('the redelivery was delivered', async () =>
    (await s.api(`/api/v3/events/deliveries/${delivery.id}/`)).body.status === 'delivered' ? true : undefined,
  );
  expect(await failedJobs()).toBe(0);

  // A redelivery that fails again is one failed job again, not two.
  receiver.respond = () => 503;
  await s.api(`/api/v3/events/deliveries/${delivery.id}/redeliver/`, { method: 'POST' });
  await eventually('the second redelivery failed', async () =>
    (await s.api(`/api/v3/events/deliveries/${delivery.id}/`)).body.status === 'failed' && (await failedJobs()) === 1 ? true : undefined,
  );
  receiver.respond = () => 200;
  await s.api(`/api/v3/events/deliveries/${delivery.id}/redeliver/`, { method: 'POST' });
  await eventually('the third redelivery was delivered', async () =>
    (await s.api(`/api/v3/events/deliveries/${delivery.id}/`)).body.status === 'delivered' ? true : undefined,
  );
  expect(await failedJobs()).toBe(0);
}, 60_000);
