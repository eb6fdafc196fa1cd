/**
 * Webhook events (spec §6.1), written to the outbox inside the caller's transaction. The body is
 * serialised once, here: every attempt sends, and signs, exactly these bytes.
 */
import { randomUUID } from 'node:crypto';
import type { Store, UserRow } from '../store/contract.js';

export const EVENT_TYPES = ['group_membership_change', 'user_updated', 'user_deactivated'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

async function groupNames(store: Store, userId: number): Promise<string[]> {
  const uuids = (await store.users.groupsOf([userId])).get(userId)!;
  const rows = await Promise.all(uuids.map((uuid) => store.groups.findByUuid(uuid)));
  return rows.flatMap((row) => (row ? [row.name] : []));
}

async function append(
  store: Store,
  type: EventType | 'user_created',
  user: UserRow,
  data: Record<string, unknown>,
  groupName: string | null = null,
) {
  const body = JSON.stringify({ event_type: type, timestamp: new Date().toISOString(), data });
  await store.events.append({
    id: randomUUID(),
    type,
    body,
    user_uuid: user.uuid,
    user_groups: await groupNames(store, user.id),
    group_name: groupName,
  });
}

/** `group_id` besides the spec's fields: a group's name can change before the event is read, its id cannot. */
export const emitMembershipChange = (store: Store, user: UserRow, group: GroupRef, action: 'added' | 'removed') =>
  append(
    store,
    'group_membership_change',
    user,
    { user_id: user.uuid, user_email: user.email, group_name: group.name, group_id: group.uuid, action },
    group.name,
  );

export const emitUserUpdated = (store: Store, user: UserRow, changed: string[]) =>
  append(store, 'user_updated', user, { user_id: user.uuid, user_email: user.email, changed });

export const emitUserDeactivated = (store: Store, user: UserRow) =>
  append(store, 'user_deactivated', user, { user_id: user.uuid, user_email: user.email });

/**
 * A new user, for outbound provisioning of applications that get everyone (domain/provisioning.ts); not a webhook
 * event (spec §6.1 has none for it), so no receiver hears it.
 */
export const emitUserCreated = (store: Store, user: UserRow) =>
  append(store, 'user_created', user, { user_id: user.uuid, user_email: user.email });

export type GroupEventType = 'group_renamed' | 'group_deleted';
type GroupRef = { uuid: string; name: string };

/**
 * A group renamed or deleted, for outbound provisioning (the applications' remote copies of the group follow it);
 * not a webhook event either. About no user: the relay sends it to every application that provisions by SCIM, and
 * the push finds whether that application holds the group.
 */
export async function emitGroupChanged(store: Store, type: GroupEventType, group: GroupRef): Promise<void> {
  const body = JSON.stringify({
    event_type: type,
    timestamp: new Date().toISOString(),
    data: { group_id: group.uuid, group_name: group.name },
  });
  await store.events.append({ id: randomUUID(), type, body, user_uuid: null, user_groups: [], group_name: group.name });
}

/** The group an event of outbound provisioning names: its id when the event carries one (events before 2026-11-27 do not). */
export function groupOfEvent(event: { body: string; group_name: string | null }): { uuid?: string; name: string } | undefined {
  if (!event.group_name) return undefined;
  const id = (JSON.parse(event.body) as { data?: { group_id?: unknown } }).data?.group_id;
  return { ...(typeof id === 'string' ? { uuid: id } : {}), name: event.group_name };
}

/** Profile fields (and email_verified) whose change is a `user_updated` event; `is_active` counts when it turns true (reactivation). */
export function changedFields(before: UserRow, after: UserRow): string[] {
  const changed = (['username', 'email', 'name', 'email_verified'] as const).filter((field) => before[field] !== after[field]) as string[];
  if (JSON.stringify(before.attributes) !== JSON.stringify(after.attributes)) changed.push('attributes');
  if (!before.is_active && after.is_active) changed.push('is_active');
  return changed;
}
