/**
 * /Groups: list (filter → SQL; members read only when the answer shows them), get, create, replace, patch,
 * delete — through the domain functions of the provisioning API (createGroup, updateGroup, deleteGroup,
 * changeGroupMembership), in one transaction: a member removed from an application's access group loses its
 * grants there, and every membership change is a `group_membership_change`, whichever door it came through.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Settings } from '../settings/schema.js';
import type { Condition, GroupRow, Store } from '../store/contract.js';
import { changeGroupMembership, createGroup, deleteGroup, updateGroup } from '../domain/groups.js';
import { conform, type Resource } from './conform.js';
import { invalidValue, notFound } from './errors.js';
import { listRequest, listResponse, pageOf, projectionOf, searchParameters } from './list.js';
import { checkIfMatch, versionOf } from './meta.js';
import { applyPatch } from './patch.js';
import { project, type Projection } from './projection.js';
import { groupCondition } from './resolve-filter.js';
import { answerResource, resourceId } from './respond.js';
import { GROUP } from './schemas.js';
import { groupWrite, toScimGroup, type GroupWrite } from './group-resource.js';

const EVERYGROUP: Condition = { kind: 'constant', value: true };

/** Whether an answer shows members: big groups are listed without reading them (excludedAttributes=members). */
function showsMembers({ attributes, excludedAttributes }: Projection): boolean {
  if (excludedAttributes?.some((name) => /^(urn:.*:group:)?members$/i.test(name))) return false;
  if (attributes) return attributes.some((name) => /^(urn:.*:group:)?members(\..*)?$/i.test(name));
  return true;
}

export function groupRoutes(router: Router, store: Store, settings: Settings): void {
  const baseUrl = settings.issuer.base_url;
  const applications = settings.applications;

  const view = async (s: Store, row: GroupRow, members = true) =>
    toScimGroup(row, members ? (await s.directory.membersOf([row.uuid])).get(row.uuid)! : undefined, baseUrl);

  async function locked(tx: Store, raw: string | undefined): Promise<GroupRow> {
    const id = resourceId(raw, 'Group');
    const row = await tx.groups.lockByUuid(id);
    if (!row) throw notFound('Group', id);
    return row;
  }

  /** Members become exactly `wanted` (user uuids), one domain change per member; an unknown user refuses it all. */
  async function setMembers(tx: Store, group: string, wanted: string[]): Promise<void> {
    const current = (await tx.directory.membersOf([group])).get(group)!;
    const present = new Set(current.map((member) => member.uuid));
    const joining = wanted.filter((uuid) => !present.has(uuid));
    const users = await tx.directory.usersByUuid(joining);
    if (users.length !== joining.length) {
      const known = new Set(users.map((user) => user.uuid));
      throw invalidValue(`members: no user has the id ${joining.find((uuid) => !known.has(uuid))}.`);
    }
    for (const user of users.sort((a, b) => a.id - b.id)) await changeGroupMembership(tx, group, user.id, 'added', applications);
    const staying = new Set(wanted);
    for (const member of current) {
      if (!staying.has(member.uuid)) await changeGroupMembership(tx, group, member.id, 'removed', applications);
    }
  }

  async function write(tx: Store, row: GroupRow, changes: GroupWrite, members = true): Promise<Resource> {
    // Only a real change of the group's own fields is one (audit, lastModified); members are changed one by one.
    if (changes.name !== row.name || changes.external_id !== row.external_id) {
      await updateGroup(tx, row.uuid, { name: changes.name, external_id: changes.external_id });
    }
    if (changes.members) await setMembers(tx, row.uuid, changes.members);
    return view(tx, (await tx.groups.findByUuid(row.uuid))!, members);
  }

  async function list(ctx: Context, source: Record<string, unknown>) {
    const request = listRequest(source, settings.api.max_page_size);
    const where = request.filter ? groupCondition(request.filter) : EVERYGROUP;
    const { total, rows } = await store.directory.findGroups(where, pageOf(request));
    const members = showsMembers(request.projection) ? await store.directory.membersOf(rows.map((row) => row.uuid)) : undefined;
    const resources = rows.map((row) => project(toScimGroup(row, members?.get(row.uuid), baseUrl), GROUP, request.projection));
    listResponse(ctx, request, total, resources);
  }

  router.get('/Groups', (ctx) => list(ctx, ctx.query));
  router.post('/Groups/.search', (ctx) => list(ctx, searchParameters(ctx.request.body)));

  router.get('/Groups/:id', async (ctx) => {
    const id = resourceId(ctx.params.id, 'Group');
    const row = await store.groups.findByUuid(id);
    if (!row) throw notFound('Group', id);
    const projection = projectionOf(ctx.query);
    answerResource(ctx, 200, await view(store, row, showsMembers(projection)), GROUP, projection);
  });

  router.post('/Groups', async (ctx) => {
    const changes = groupWrite(conform(ctx.request.body, GROUP), 'none');
    const resource = await store.transaction(async (tx) => {
      const created = await createGroup(tx, { name: changes.name, external_id: changes.external_id });
      const row = (await tx.groups.findByUuid(created.pk))!;
      return write(tx, row, changes);
    });
    answerResource(ctx, 201, resource, GROUP, projectionOf(ctx.query));
  });

  router.put('/Groups/:id', async (ctx) => {
    const body = ctx.request.body;
    const resource = await store.transaction(async (tx) => {
      const row = await locked(tx, ctx.params.id);
      checkIfMatch(ctx.get('If-Match') || undefined, versionOf(await view(tx, row, false)));
      return write(tx, row, groupWrite(conform(body, GROUP), 'keep'));
    });
    answerResource(ctx, 200, resource, GROUP, projectionOf(ctx.query));
  });

  // 204 without a body (RFC 7644 §3.5.2 allows it; Entra ID and Okta expect it): a member added to a group of
  // thousands is not answered with all of them. Asked for attributes, the answer is 200 with the group.
  router.patch('/Groups/:id', async (ctx) => {
    const body = ctx.request.body;
    const projection = projectionOf(ctx.query);
    const answered = Boolean(projection.attributes || projection.excludedAttributes);
    const resource = await store.transaction(async (tx) => {
      const row = await locked(tx, ctx.params.id);
      const current = await view(tx, row);
      checkIfMatch(ctx.get('If-Match') || undefined, versionOf(current));
      const patched = applyPatch(conform(current, GROUP), body, GROUP);
      return write(tx, row, groupWrite(conform(patched, GROUP), 'none'), answered && showsMembers(projection));
    });
    if (answered) return answerResource(ctx, 200, resource, GROUP, projection);
    ctx.set('ETag', versionOf(resource));
    ctx.status = 204;
  });

  router.delete('/Groups/:id', async (ctx) => {
    await store.transaction(async (tx) => {
      const row = await locked(tx, ctx.params.id);
      checkIfMatch(ctx.get('If-Match') || undefined, versionOf(await view(tx, row, false)));
      await deleteGroup(tx, row.uuid, applications);
    });
    ctx.status = 204;
  });
}
