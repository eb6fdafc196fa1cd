/**
 * /api/v3/admin/keys/: list the ID-token signing keys and rotate them (scope `admin`), as `idp keys` does. A
 * rotation only writes the store: running processes sign with the new key when they next load the keys
 * (keys.reload_seconds), exactly as after `idp keys rotate`.
 */
import type Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { rotateSigningKey } from '../domain/signing-keys.js';
import { adminListQuery } from './admin-schemas.js';
import { signingKeyView } from './admin-views.js';
import { paginatedSlice, pageRequest } from './pagination.js';
import { requireScope } from './require-scope.js';
import { validateQuery } from './validate.js';

export function adminKeyRoutes(router: Router, store: Store, settings: Settings): void {
  router.get('/keys/', requireScope('admin'), async (ctx) => {
    const query = validateQuery<{ page?: number; page_size?: number }>(adminListQuery, ctx.query);
    const request = pageRequest(query, settings.api);
    // A handful of keys (one per rotation): the page is cut from the whole list.
    ctx.body = paginatedSlice(ctx, settings.issuer.base_url, request, await store.signingKeys.list(), signingKeyView);
  });

  router.post('/keys/rotate/', requireScope('admin'), async (ctx) => {
    const kid = await rotateSigningKey(store, settings.secrets.key);
    // Read back for its timestamps (keys are never deleted; a concurrent rotation may already have retired it).
    const row = (await store.signingKeys.list()).find((key) => key.kid === kid);
    if (!row) throw new Error(`signing key ${kid} is missing right after its rotation`);
    ctx.status = 201;
    ctx.body = signingKeyView(row);
  });
}
