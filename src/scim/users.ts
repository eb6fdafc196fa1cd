/**
 * /Users: list (filter → SQL), get, create, replace, patch, delete — each write through the domain functions the
 * provisioning API uses (createUser, updateUser, deleteUser), inside one transaction, so events, audit and
 * deactivation are what the API does. DELETE is the API's delete: a still-active user is deactivated first
 * (sessions and grants end, `user_deactivated`), then the row goes; the audit trail keeps the record.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Settings } from '../settings/schema.js';
import type { Condition, Store, UserRow } from '../store/contract.js';
import { createUser, deleteUser, updateUser } from '../domain/users.js';
import { conform, type Resource } from './conform.js';
import { notFound } from './errors.js';
import { listRequest, listResponse, pageOf, projectionOf, searchParameters } from './list.js';
import { checkIfMatch, versionOf } from './meta.js';
import { applyPatch } from './patch.js';
import { project } from './projection.js';
import { userCondition } from './resolve-filter.js';
import { answerResource, resourceId } from './respond.js';
import { USER } from './schemas.js';
import { toScimUser, userWrite } from './user-resource.js';

const EVERYONE: Condition = { kind: 'constant', value: true };

export function userRoutes(router: Router, store: Store, settings: Settings): void {
  const baseUrl = settings.issuer.base_url;

  const view = async (s: Store, row: UserRow, stored = false) =>
    toScimUser(row, (await s.directory.groupsOf([row.id])).get(row.id)!, baseUrl, { stored });

  /** The user of the path, locked until the transaction ends (concurrent writes to one user queue up). */
  async function locked(tx: Store, raw: string | undefined): Promise<UserRow> {
    const id = resourceId(raw, 'User');
    const found = await tx.users.findByUuid(id);
    const row = found && (await tx.users.lockById(found.id));
    if (!row) throw notFound('User', id);
    return row;
  }

  /** Writes `resource` over the user, unless the client's If-Match names another version. */
  async function replace(tx: Store, ifMatch: string, row: UserRow, resource: (current: Resource) => Resource): Promise<Resource> {
    checkIfMatch(ifMatch || undefined, versionOf(await view(tx, row)));
    const write = userWrite(conform(resource(await view(tx, row, true)), USER), row);
    await updateUser(tx, row.id, write);
    return view(tx, (await tx.users.findById(row.id))!);
  }

  async function list(ctx: Context, source: Record<string, unknown>) {
    const request = listRequest(source, settings.api.max_page_size);
    const where = request.filter ? userCondition(request.filter) : EVERYONE;
    const { total, rows } = await store.directory.findUsers(where, pageOf(request));
    const groups = await store.directory.groupsOf(rows.map((row) => row.id));
    const resources = rows.map((row) => project(toScimUser(row, groups.get(row.id)!, baseUrl), USER, request.projection));
    listResponse(ctx, request, total, resources);
  }

  router.get('/Users', (ctx) => list(ctx, ctx.query));
  router.post('/Users/.search', (ctx) => list(ctx, searchParameters(ctx.request.body)));

  router.get('/Users/:id', async (ctx) => {
    const id = resourceId(ctx.params.id, 'User');
    const row = await store.users.findByUuid(id);
    if (!row) throw notFound('User', id);
    answerResource(ctx, 200, await view(store, row), USER, projectionOf(ctx.query));
  });

  router.post('/Users', async (ctx) => {
    const write = userWrite(conform(ctx.request.body, USER));
    const resource = await store.transaction(async (tx) => {
      const created = await createUser(tx, write, settings.applications);
      return view(tx, (await tx.users.findById(created.pk))!);
    });
    answerResource(ctx, 201, resource, USER, projectionOf(ctx.query));
  });

  router.put('/Users/:id', async (ctx) => {
    const body = ctx.request.body;
    const resource = await store.transaction(async (tx) =>
      replace(tx, ctx.get('If-Match'), await locked(tx, ctx.params.id), () => body as Resource),
    );
    answerResource(ctx, 200, resource, USER, projectionOf(ctx.query));
  });

  router.patch('/Users/:id', async (ctx) => {
    const body = ctx.request.body;
    const resource = await store.transaction(async (tx) =>
      replace(tx, ctx.get('If-Match'), await locked(tx, ctx.params.id), (current) => applyPatch(conform(current, USER), body, USER)),
    );
    answerResource(ctx, 200, resource, USER, projectionOf(ctx.query));
  });

  router.delete('/Users/:id', async (ctx) => {
    await store.transaction(async (tx) => {
      const row = await locked(tx, ctx.params.id);
      checkIfMatch(ctx.get('If-Match') || undefined, versionOf(await view(tx, row)));
      await deleteUser(tx, row.id);
    });
    ctx.status = 204;
  });
}
