/** /api/v3/admin/tokens/: list, create and revoke API tokens (scope `admin`), as `idp tokens` does. */
import type Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { createApiToken, revokeApiToken } from '../domain/api-tokens.js';
import { adminListQuery, apiTokenCreate } from './admin-schemas.js';
import { apiTokenView } from './admin-views.js';
import { paginatedSlice, pageRequest } from './pagination.js';
import { groupPk } from './path-params.js';
import { requireScope } from '../http/require-scope.js';
import { validateBody, validateQuery } from '../http/validate.js';

const DAY_MS = 86_400_000;

export function adminTokenRoutes(router: Router, store: Store, settings: Settings): void {
  router.get('/tokens/', requireScope('admin'), async (ctx) => {
    const query = validateQuery<{ page?: number; page_size?: number }>(adminListQuery, ctx.query);
    const request = pageRequest(query, settings.api);
    // Tokens are few (people make them by hand): the page is cut from the whole list rather than in SQL.
    ctx.body = paginatedSlice(ctx, settings.issuer.base_url, request, await store.apiTokens.list(), apiTokenView);
  });

  router.post('/tokens/', requireScope('admin'), async (ctx) => {
    const body = validateBody<{ name: string; scopes: string[]; expires_in_days?: number }>(apiTokenCreate, ctx.request.body);
    const expiresAt = body.expires_in_days ? new Date(Date.now() + body.expires_in_days * DAY_MS) : null;
    const { token, row } = await createApiToken(store, { name: body.name, scopes: body.scopes, expiresAt });
    ctx.status = 201;
    ctx.body = { ...apiTokenView(row), token };
  });

  router.delete('/tokens/:id/', requireScope('admin'), async (ctx) => {
    // An unknown, already revoked or expired token is 404, as `idp tokens revoke` says "not found".
    await revokeApiToken(store, groupPk(ctx.params.id));
    ctx.status = 204;
  });
}
