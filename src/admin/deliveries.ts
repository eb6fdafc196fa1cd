/**
 * The console's delivery log: webhooks, backchannel logouts and outbound SCIM, filtered by application, kind and
 * status; a delivery's attempts; and a failed one sent again (the API's redeliver: the same event id, a fresh try).
 */
import type { AccountContext } from '../account/account-session.js';
import type { AccountDeps } from '../account/state.js';
import { getDelivery, listDeliveries, redeliver } from '../domain/deliveries.js';
import type { DeliveryKind, DeliveryStatus } from '../store/contract.js';
import { pageOf, paging, queryText, renderConsole, notFound, option } from './frame.js';

type Context = AccountContext & { params: Record<string, string> };

const STATUSES: DeliveryStatus[] = ['pending', 'delivered', 'failed'];
const KINDS: DeliveryKind[] = ['webhook', 'backchannel', 'scim'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function showDeliveries(deps: AccountDeps) {
  return async function showDeliveries(ctx: AccountContext) {
    const app = queryText(ctx, 'app');
    const status = STATUSES.find((candidate) => candidate === queryText(ctx, 'status'));
    const kind = KINDS.find((candidate) => candidate === queryText(ctx, 'kind'));
    const { offset, limit } = pageOf(ctx);
    const found = await listDeliveries(
      deps.store,
      { ...(app ? { app } : {}), ...(status ? { status } : {}), ...(kind ? { kind } : {}) },
      { offset, limit },
    );
    const pages = paging(ctx, '/admin/deliveries/', found.total, found.results.length);
    renderConsole(ctx, 'deliveries', {
      heading: 'Deliveries',
      blocks: [
        {
          form: {
            method: 'get',
            action: '/admin/deliveries/',
            search: true,
            id: 'filter',
            button: 'Filter',
            fields: [
              {
                name: 'app',
                label: 'Application',
                type: 'select',
                value: app,
                options: [
                  option('', 'every application'),
                  ...deps.settings.applications.map((candidate) => option(candidate.slug, candidate.name)),
                ],
              },
              {
                name: 'status',
                label: 'Status',
                type: 'select',
                value: status ?? '',
                options: [option('', 'any status'), ...STATUSES.map((value) => option(value))],
              },
            ],
          },
        },
        {
          status: pages.status,
          table: {
            caption: 'Deliveries, newest first',
            empty: 'No delivery matches.',
            columns: ['When (UTC)', 'Application', 'Kind', 'Event', 'Status', 'Attempts'],
            rows: found.results.map((delivery) => [
              { text: delivery.created_at.slice(0, 19).replace('T', ' '), href: `/admin/deliveries/${delivery.id}/` },
              delivery.app,
              delivery.kind,
              delivery.event_type ?? '',
              delivery.status,
              delivery.attempts,
            ]),
          },
          pages: pages.pages,
        },
      ],
    });
  };
}

async function deliveryOfPath(deps: AccountDeps, id: unknown) {
  const found = UUID.test(String(id)) ? await getDelivery(deps.store, String(id)).catch(() => undefined) : undefined;
  if (!found)
    throw notFound('No such delivery', 'No delivery has this id (purged with its event, or never made).', {
      href: '/admin/deliveries/',
      label: 'Back to deliveries',
    });
  return found;
}

export function showDelivery(deps: AccountDeps) {
  return async function showDelivery(ctx: Context, shown: { error?: string; status?: number } = {}) {
    const delivery = await deliveryOfPath(deps, ctx.params.id);
    renderConsole(
      ctx,
      'deliveries',
      {
        heading: `${delivery.kind} to ${delivery.app}`,
        lead: `${delivery.event_type ?? 'event'} · ${delivery.status}`,
        notice: ctx.query.notice === 'sent' ? 'Sent again: it is on the queue; reload to see the attempt.' : undefined,
        error: shown.error,
        blocks: [
          {
            dl: [
              ['Target', delivery.target],
              ['Event id', delivery.event_id],
              ['Created (UTC)', delivery.created_at.slice(0, 19).replace('T', ' ')],
              ['Last answer', delivery.last_status_code === null ? (delivery.last_error ?? 'none yet') : String(delivery.last_status_code)],
            ],
          },
          {
            title: 'Attempts',
            id: 'attempts',
            table: {
              caption: 'Each attempt, oldest first',
              empty: 'Not tried yet.',
              columns: ['Attempt', 'When (UTC)', 'Answer', 'Error', 'Took'],
              rows: delivery.attempt_log.map((attempt) => [
                attempt.attempt,
                attempt.at.slice(0, 19).replace('T', ' '),
                attempt.status_code ?? 'none',
                attempt.error ?? '',
                `${attempt.duration_ms} ms`,
              ]),
            },
          },
          ...(delivery.status === 'failed'
            ? [
                {
                  title: 'Send again',
                  id: 'redeliver',
                  form: { action: `/admin/deliveries/${delivery.id}/redeliver`, id: 'redeliver', button: 'Send it again', fields: [] },
                },
              ]
            : []),
        ],
      },
      shown.status,
    );
  };
}

export function redeliverDelivery(deps: AccountDeps) {
  const show = showDelivery(deps);
  return async function redeliverDelivery(ctx: Context) {
    const delivery = await deliveryOfPath(deps, ctx.params.id);
    if (!deps.enqueue) return show(ctx, { error: 'The queue is not running in this process; use idp deliveries redeliver.', status: 503 });
    try {
      await redeliver(deps.store, delivery.id, deps.enqueue);
    } catch (error) {
      // The queue refused it (Redis down): redeliver put the delivery back as it was.
      deps.logger?.warn({ err: error, delivery: delivery.id }, 'redelivery from the console could not be queued');
      return show(ctx, { error: 'The queue (Redis) cannot be reached just now; nothing was changed. Try again in a moment.', status: 503 });
    }
    ctx.status = 303;
    ctx.redirect(`/admin/deliveries/${delivery.id}/?notice=sent`);
  };
}
