/**
 * /api/v3/admin: API tokens and signing keys over HTTP (scope `admin`), so they can be managed while `idp serve`
 * holds the embedded database (the CLI falls back to these when it cannot open the database itself).
 */
import Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { adminKeyRoutes } from './admin-keys.js';
import { adminTokenRoutes } from './admin-tokens.js';

export function adminRouter(store: Store, settings: Settings): Router {
  const admin = new Router({ prefix: '/api/v3/admin' });
  adminTokenRoutes(admin, store, settings);
  adminKeyRoutes(admin, store, settings);
  return admin;
}
