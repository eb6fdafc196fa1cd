/** `idp audit list`: the audit trail from the command line (the same as GET /api/v3/events/audit/). */
import type { Command } from 'commander';
import { listAudit } from '../domain/audit-view.js';
import { UUID } from '../uuid.js';
import { AUDIT_ACTIONS, isAuditAction } from '../domain/audit-actions.js';
import { print, printTable, withRuntime } from './context.js';

interface AuditOptions {
  user?: string;
  app?: string;
  action?: string;
  since?: string;
  until?: string;
  limit: string;
  json?: boolean;
}

const instant = (flag: string, value: string | undefined): Date | undefined => {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`${flag} must be a date and time, e.g. 2026-11-23T10:00:00Z`);
  return date;
};

export function auditCommands(program: Command): void {
  program
    .command('audit')
    .description('the audit trail')
    .command('list')
    .description('newest first')
    .option('--user <uuid>', 'events about this user')
    .option('--app <slug>', 'events of this application')
    .option('--action <action>', 'e.g. sign_in.failed, user.updated (an unknown action is refused)')
    .option('--since <time>', 'from this time (ISO 8601)')
    .option('--until <time>', 'up to this time (ISO 8601)')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'print JSON')
    .action(async (options: AuditOptions) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a whole number ≥ 1');
      if (options.user !== undefined && !UUID.test(options.user)) throw new Error('--user must be a user uuid');
      // An action the trail never records would find nothing, which reads as "it did not happen": say so instead.
      if (options.action !== undefined && !isAuditAction(options.action))
        throw new Error(
          `--action ${JSON.stringify(options.action)} is not an action the audit trail records; one of ${AUDIT_ACTIONS.join(', ')}`,
        );
      const filter = {
        user: options.user,
        app: options.app,
        action: options.action,
        since: instant('--since', options.since),
        until: instant('--until', options.until),
      };
      await withRuntime(async ({ store }) => {
        const { results } = await listAudit(store, filter, { offset: 0, limit });
        if (options.json) return print(JSON.stringify(results, null, 2));
        printTable(
          ['AT', 'ACTION', 'ACTOR', 'USER', 'APP', 'IP', 'DETAILS'],
          results.map((event) => [
            event.at,
            event.action,
            event.actor.id ? `${event.actor.type}:${event.actor.id}` : event.actor.type,
            event.user ?? '-',
            event.app ?? '-',
            event.ip ?? '-',
            JSON.stringify(event.details),
          ]),
        );
      });
    });
}
