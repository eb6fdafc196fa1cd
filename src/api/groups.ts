/** /groups/ handlers: list, create, get, patch, delete, add_user, remove_user. */
import type Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { changeGroupMembership, createGroup, deleteGroup, getGroup, listGroups, updateGroup } from '../domain/groups.js';
import { paginated, pageRequest, toPage } from './pagination.js';
import { groupPk } from './path-params.js';
import { requireScope } from '../http/require-scope.js';
import { groupCreate, groupListQuery, groupPatch, memberBody, readOnlyGroupFields } from './schemas.js';
import { validateBody, validateQuery } from '../http/validate.js';

interface GroupInput {
  name: string;
  attributes?: Record<string, unknown>;
}

export function groupRoutes(router: Router, store: Store, settings: Settings): void {
  const read = requireScope('groups:read');
  const write = requireScope('groups:write');

  router.get('/groups/', read, async (ctx) => {
    const query = validateQuery<{ page?: number; page_size?: number; search?: string }>(groupListQuery, ctx.query);
    const request = pageRequest(query, settings.api);
    const { total, results } = await listGroups(store, { search: query.search }, toPage(request));
    ctx.body = paginated(ctx, settings.issuer.base_url, request, total, results);
  });

  router.post('/groups/', write, async (ctx) => {
    const input = validateBody<GroupInput>(groupCreate, ctx.request.body, readOnlyGroupFields);
    ctx.status = 201;
    ctx.body = await createGroup(store, input);
  });

  router.get('/groups/:pk/', read, async (ctx) => {
    ctx.body = await getGroup(store, groupPk(ctx.params.pk));
  });

  router.patch('/groups/:pk/', write, async (ctx) => {
    const pk = groupPk(ctx.params.pk);
    ctx.body = await updateGroup(store, pk, validateBody<Partial<GroupInput>>(groupPatch, ctx.request.body, readOnlyGroupFields));
  });

  router.delete('/groups/:pk/', write, async (ctx) => {
    await deleteGroup(store, groupPk(ctx.params.pk), settings.applications);
    ctx.status = 204;
  });

  for (const [path, action] of [
    ['add_user', 'added'],
    ['remove_user', 'removed'],
  ] as const) {
    router.post(`/groups/:pk/${path}/`, write, async (ctx) => {
      const pk = groupPk(ctx.params.pk);
      const { pk: user } = validateBody<{ pk: number }>(memberBody, ctx.request.body);
      await changeGroupMembership(store, pk, user, action, settings.applications);
      ctx.status = 204;
    });
  }
}
