/**
 * Who hears an event (DESIGN §7): each application with a webhook gets events about users in its access
 * group (all users when it has none), and membership changes of its access group in both directions.
 */
import type { ApplicationSettings } from '../settings/schema.js';
import type { OutboxRow } from '../store/contract.js';
import { EVENT_TYPES, type EventType } from './events.js';
import { readBackchannelLogout } from './logout.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function webhookRecipients(applications: ApplicationSettings[], event: OutboxRow): ApplicationSettings[] {
  if (!EVENT_TYPES.includes(event.type as EventType)) return []; // e.g. backchannel_logout: not a webhook
  return applications.filter((app) => {
    if (!app.webhook) return false;
    if (app.webhook.events && !(app.webhook.events as readonly string[]).includes(event.type)) return false;
    if (!app.access_group) return true;
    const group = app.access_group;
    if (event.group_name && same(event.group_name, group)) return true;
    return event.user_groups.some((name) => same(name, group));
  });
}

/** Backchannel logout (spec §6.2): the clients named by the event that registered a backchannel_logout_uri. */
export function backchannelRecipients(applications: ApplicationSettings[], event: OutboxRow): ApplicationSettings[] {
  const logout = readBackchannelLogout(event.type, event.body);
  if (!logout) return [];
  const named = new Set(logout.targets.map((target) => target.client_id));
  return applications.filter((app) => app.backchannel_logout_uri && named.has(app.client_id));
}
