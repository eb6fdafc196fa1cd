/** `idp deliveries list|redeliver`: the delivery log from the command line (same as /api/v3/events/deliveries/). */
import { UUID } from '../uuid.js';
import type { Command } from 'commander';
import { listDeliveries, redeliver } from '../domain/deliveries.js';
import { startProducer } from '../queue/producer.js';
import { print, printTable, withRuntime } from './context.js';

const STATUSES = ['pending', 'delivered', 'failed'] as const;

export function deliveryCommands(program: Command): void {
  const deliveries = program.command('deliveries').description('webhook and backchannel logout deliveries');

  deliveries
    .command('list')
    .description('newest first')
    .option('--status <status>', `one of ${STATUSES.join(', ')}`)
    .option('--app <slug>', 'only this application')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'print JSON')
    .action(async (options: { status?: string; app?: string; limit: string; json?: boolean }) => {
      if (options.status && !(STATUSES as readonly string[]).includes(options.status))
        throw new Error(`--status must be one of ${STATUSES.join(', ')}`);
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a whole number ≥ 1');
      await withRuntime(async ({ store }) => {
        const { results } = await listDeliveries(
          store,
          { status: options.status as (typeof STATUSES)[number] | undefined, app: options.app },
          { offset: 0, limit },
        );
        if (options.json) return print(JSON.stringify(results, null, 2));
        printTable(
          ['ID', 'STATUS', 'KIND', 'APP', 'EVENT', 'ATTEMPTS', 'LAST OUTCOME'],
          results.map((d) => [
            d.id,
            d.status,
            d.kind,
            d.app,
            d.event_type ?? '-',
            String(d.attempts),
            String(d.last_status_code ?? d.last_error ?? '-'),
          ]),
        );
      });
    });

  deliveries
    .command('redeliver')
    .description('queue a delivery again (keeps its event id)')
    .argument('<id>', 'delivery id from `deliveries list`')
    .action(async (id: string) => {
      if (!UUID.test(id)) throw new Error(`delivery not found: ${id}`);
      await withRuntime(async ({ store }, settings) => {
        const producer = startProducer(settings);
        try {
          const view = await redeliver(store, id, producer.enqueue);
          print(`queued ${view.id} (${view.kind} to ${view.app}) again`);
        } finally {
          await producer.close();
        }
      });
    });
}
