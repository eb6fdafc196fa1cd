/**
 * /api/v3/admin/keys/: list the ID-token signing keys and rotate them (scope `admin`), as `idp keys` does. A
 * rotation only writes the store: running processes sign with the new keys when they next load the keys
 * (keys.reload_seconds), exactly as after `idp keys rotate`.
 */
import type Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { rotateSigningKeys, signingAlgsOf } from '../domain/signing-keys.js';
import { adminListQuery } from './admin-schemas.js';
import { signingKeyView, type SigningKeyRotationView } from './admin-views.js';
import { paginatedSlice, pageRequest } from './pagination.js';
import { requireScope } from '../http/require-scope.js';
import { validateQuery } from '../http/validate.js';

export function adminKeyRoutes(router: Router, store: Store, settings: Settings): void {
  router.get('/keys/', requireScope('admin'), async (ctx) => {
    const query = validateQuery<{ page?: number; page_size?: number }>(adminListQuery, ctx.query);
    const request = pageRequest(query, settings.api);
    // A handful of keys (a few per rotation): the page is cut from the whole list.
    ctx.body = paginatedSlice(ctx, settings.issuer.base_url, request, await store.signingKeys.list(), signingKeyView);
  });

  router.post('/keys/rotate/', requireScope('admin'), async (ctx) => {
    const rotated = await rotateSigningKeys(store, settings.secrets.key, signingAlgsOf(settings.applications));
    // Read back for their timestamps (keys are never deleted; a concurrent rotation may already have retired them).
    const rows = await store.signingKeys.list();
    const keys = rotated.map(({ kid }) => {
      const row = rows.find((key) => key.kid === kid);
      if (!row) throw new Error(`signing key ${kid} is missing right after its rotation`);
      return signingKeyView(row);
    });
    ctx.status = 201;
    ctx.body = { ...keys[0]!, keys } satisfies SigningKeyRotationView;
  });
}
