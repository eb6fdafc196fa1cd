/**
 * `idp webhooks list|test|enable`: each application's receiver and its state, a signed ping to check a receiver
 * (and its signature checks) before real events flow, and enabling a receiver disabled by a 410 Gone.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { ApplicationSettings, Settings } from '../settings/schema.js';
import { loadSettings } from '../settings/load.js';
import { NotFoundError } from '../errors.js';
import { postWithTimeout } from '../../jobs/http-attempt.js';
import { activeSecrets, webhookHeaders } from '../../jobs/sign-webhook.js';
import { print, printTable, withRuntime } from './context.js';

function webhookOf(settings: Settings, slug: string): NonNullable<ApplicationSettings['webhook']> {
  const app = settings.applications.find((candidate) => candidate.slug === slug);
  if (!app) throw new NotFoundError(`application ${JSON.stringify(slug)}`);
  if (!app.webhook) throw new NotFoundError(`webhook of application ${JSON.stringify(slug)} (it has none configured)`);
  return app.webhook;
}

export function webhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('webhook receivers of the applications');

  webhooks
    .command('list')
    .description('each application with a webhook: its URL and whether it is enabled')
    .action(async () => {
      await withRuntime(async ({ store }, settings) => {
        const disabled = new Map((await store.events.disabledEndpoints()).map((row) => [row.app, row]));
        printTable(
          ['APPLICATION', 'URL', 'STATE'],
          settings.applications
            .filter((candidate) => candidate.webhook)
            .map((app) => {
              const row = disabled.get(app.slug);
              const state = row?.url === app.webhook!.url ? `disabled since ${row.disabled_at.toISOString()}: ${row.reason}` : 'enabled';
              return [app.slug, app.webhook!.url, state];
            }),
        );
      });
    });

  webhooks
    .command('test')
    .description('send a signed ping event (event_type "ping") to the application\'s receiver now')
    .argument('<app>', 'application slug')
    .action(async (slug: string) => {
      const settings = await loadSettings({ readOnly: true });
      const webhook = webhookOf(settings, slug);
      const id = randomUUID();
      const body = JSON.stringify({ event_type: 'ping', timestamp: new Date().toISOString(), data: { application: slug } });
      const result = await postWithTimeout(webhook.url, {
        body,
        headers: webhookHeaders(activeSecrets(webhook), { id, body }),
        timeoutMs: settings.webhooks.timeout_seconds * 1000,
        allowInsecureLoopback: settings.webhooks.allow_insecure_loopback,
      });
      const delivered = result.status !== null && result.status >= 200 && result.status < 300;
      const outcome = result.status === null ? `failed: ${result.error}` : `answered ${result.status}`;
      if (!delivered) throw new Error(`ping ${id} to ${webhook.url} ${outcome} (${result.durationMs} ms)`);
      print(`ping ${id} to ${webhook.url} ${outcome} (${result.durationMs} ms)`);
    });

  webhooks
    .command('enable')
    .description('deliver to a receiver again after it answered 410 Gone')
    .argument('<app>', 'application slug')
    .action(async (slug: string) => {
      await withRuntime(async ({ store }, settings) => {
        webhookOf(settings, slug);
        print(
          (await store.events.enableEndpoint(slug)) ? `webhooks to ${slug} are enabled again` : `webhooks to ${slug} were not disabled`,
        );
      });
    });
}
