/** The audit trail in PostgreSQL (one table, indexed by time, user, app and action). */
import type { Kysely } from 'kysely';
import type { AuditFilter, AuditRepository, NewAuditEvent } from './contract.js';
import type { Tables } from './tables.js';
import { UUID } from '../uuid.js';

/** The row an event is stored as (here, and with a sign-in's `last_login` in credentials-repository.ts). */
export const auditValues = (event: NewAuditEvent) => ({
  action: event.action,
  actor_type: event.actor_type,
  actor: event.actor ?? null,
  user_uuid: event.user_uuid ?? null,
  app: event.app ?? null,
  ip: event.ip ?? null,
  user_agent: event.user_agent ?? null,
  details: JSON.stringify(event.details ?? {}),
});

export function auditRepository(db: Kysely<Tables>): AuditRepository {
  const filtered = (filter: AuditFilter) => {
    let query = db.selectFrom('audit_events');
    if (filter.user !== undefined)
      query = UUID.test(filter.user) ? query.where('user_uuid', '=', filter.user) : query.where(({ lit }) => lit(false));
    if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
    if (filter.app !== undefined) query = query.where('app', '=', filter.app);
    if (filter.action !== undefined) query = query.where('action', '=', filter.action);
    if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
    if (filter.until !== undefined) query = query.where('at', '<=', filter.until);
    return query;
  };

  return {
    async record(event) {
      await db.insertInto('audit_events').values(auditValues(event)).execute();
    },

    async list(filter, page) {
      const [{ total }, rows] = await Promise.all([
        filtered(filter)
          .select((eb) => eb.fn.countAll<string>().as('total'))
          .executeTakeFirstOrThrow(),
        filtered(filter).selectAll().orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute(),
      ]);
      return { total: Number(total), rows };
    },

    async prune(before) {
      const result = await db.deleteFrom('audit_events').where('at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
