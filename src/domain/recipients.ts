/**
 * Who hears an event (DESIGN §7): each application with a webhook gets events about users in its access
 * group (all users when it has none), and membership changes of its access group in both directions.
 */
import type { ApplicationSettings } from '../settings/schema.js';
import type { OutboxRow } from '../store/contract.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function webhookRecipients(applications: ApplicationSettings[], event: OutboxRow): ApplicationSettings[] {
  return applications.filter((app) => {
    if (!app.webhook) return false;
    if (app.webhook.events && !app.webhook.events.includes(event.type)) return false;
    if (!app.access_group) return true;
    const group = app.access_group;
    if (event.group_name && same(event.group_name, group)) return true;
    return event.user_groups.some((name) => same(name, group));
  });
}
