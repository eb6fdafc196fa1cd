/**
 * The console's audit log: filtered by the person it is about and by who acted (e-mail or id), action, application
 * and time range, newest first, and exported as CSV (the same filters, at most 10,000 rows; cells that a
 * spreadsheet would run as a formula are quoted with a leading apostrophe).
 */
import type { AccountContext } from '../account/account-session.js';
import type { AccountDeps } from '../account/state.js';
import { listAudit, type AuditView } from '../domain/audit-view.js';
import { AUDIT_ACTIONS, isAuditAction } from '../domain/audit-actions.js';
import type { AuditFilter } from '../store/contract.js';
import { pageOf, paging, queryText, renderConsole, option } from './frame.js';

const EXPORT_LIMIT = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The filter the query asks for, and its problem in words when a part of it cannot be read. */
async function filterOf(
  deps: AccountDeps,
  ctx: AccountContext,
): Promise<{ filter: AuditFilter; problem?: string; values: Record<string, string> }> {
  const values = {
    person: queryText(ctx, 'person', 254),
    by: queryText(ctx, 'by', 254),
    action: queryText(ctx, 'action'),
    app: queryText(ctx, 'app'),
    from: queryText(ctx, 'from'),
    to: queryText(ctx, 'to'),
  };
  const filter: AuditFilter = {};
  if (values.person) {
    const user = UUID.test(values.person)
      ? await deps.store.users.findByUuid(values.person)
      : await deps.store.users.findByEmail(values.person);
    // A deleted person is still in the trail by id.
    filter.user = user?.uuid ?? (UUID.test(values.person) ? values.person : '00000000-0000-0000-0000-000000000000');
  }
  // Who acted: a person by e-mail (their id), else an id as given (a person's, an API token's).
  if (values.by) filter.actor = values.by.includes('@') ? ((await deps.store.users.findByEmail(values.by))?.uuid ?? values.by) : values.by;
  if (values.action && isAuditAction(values.action)) filter.action = values.action;
  if (values.app) filter.app = values.app;
  if (DAY.test(values.from)) filter.since = new Date(`${values.from}T00:00:00Z`);
  if (DAY.test(values.to)) filter.until = new Date(`${values.to}T23:59:59.999Z`);
  const problem =
    (values.from && !DAY.test(values.from)) || (values.to && !DAY.test(values.to)) ? 'Dates are written 2026-11-27.' : undefined;
  return { filter, problem, values };
}

export function showAudit(deps: AccountDeps) {
  return async function showAudit(ctx: AccountContext) {
    const { filter, problem, values } = await filterOf(deps, ctx);
    const { offset, limit } = pageOf(ctx);
    const found = await listAudit(deps.store, filter, { offset, limit });
    const pages = paging(ctx, '/admin/audit/', found.total, found.results.length);
    const exportQuery = new URLSearchParams(Object.entries(values).filter(([, value]) => value));
    renderConsole(ctx, 'audit', {
      heading: 'Audit log',
      error: problem,
      blocks: [
        {
          form: {
            method: 'get',
            action: '/admin/audit/',
            search: true,
            id: 'filter',
            button: 'Filter',
            fields: [
              { name: 'person', label: 'About (e-mail or id)', value: values.person },
              { name: 'by', label: 'By (e-mail, or a token id)', value: values.by },
              {
                name: 'action',
                label: 'Action',
                type: 'select',
                value: values.action,
                options: [option('', 'any action'), ...AUDIT_ACTIONS.map((action) => option(action))],
              },
              {
                name: 'app',
                label: 'Application',
                type: 'select',
                value: values.app,
                options: [option('', 'any'), ...deps.settings.applications.map((app) => option(app.slug, app.name))],
              },
              { name: 'from', label: 'From (UTC day)', type: 'date', value: values.from },
              { name: 'to', label: 'To (UTC day)', type: 'date', value: values.to },
            ],
          },
        },
        {
          status: pages.status,
          table: {
            caption: 'Audit entries, newest first',
            empty: 'No entry matches.',
            columns: ['When (UTC)', 'Action', 'Person', 'By', 'Application', 'Address'],
            rows: found.results.map((entry) => [
              entry.at.slice(0, 19).replace('T', ' '),
              entry.action,
              entry.user ?? '',
              entry.actor.id ? `${entry.actor.type} ${entry.actor.id}` : entry.actor.type,
              entry.app ?? '',
              entry.ip ?? '',
            ]),
          },
          pages: pages.pages,
          links: [{ href: `/admin/audit/export.csv?${exportQuery}`, label: 'Download as CSV' }],
        },
      ],
    });
  };
}

/** One CSV cell (RFC 4180), with a formula's first character defused. */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const CSV_COLUMNS: Array<[string, (entry: AuditView) => unknown]> = [
  ['at', (entry) => entry.at],
  ['action', (entry) => entry.action],
  ['user', (entry) => entry.user],
  ['actor_type', (entry) => entry.actor.type],
  ['actor', (entry) => entry.actor.id],
  ['app', (entry) => entry.app],
  ['ip', (entry) => entry.ip],
  ['user_agent', (entry) => entry.user_agent],
  ['details', (entry) => entry.details],
];

export function exportAudit(deps: AccountDeps) {
  return async function exportAudit(ctx: AccountContext) {
    const { filter } = await filterOf(deps, ctx);
    const found = await listAudit(deps.store, filter, { offset: 0, limit: EXPORT_LIMIT });
    const lines = [
      CSV_COLUMNS.map(([name]) => name).join(','),
      ...found.results.map((entry) => CSV_COLUMNS.map(([, read]) => csvCell(read(entry))).join(',')),
    ];
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="audit-${new Date().toISOString().slice(0, 10)}.csv"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = `${lines.join('\r\n')}\r\n`;
  };
}
