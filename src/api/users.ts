/** /users/ handlers: list, create, get, patch, delete. */
import type Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { createUser, deleteUser, getUser, listUsers, updateUser, type CreateUser, type UpdateUser } from '../domain/users.js';
import { setPassword } from '../domain/passwords.js';
import { createRecoveryLink } from '../domain/password-setup.js';
import { removeMfa } from '../domain/totp.js';
import { fieldErrors } from './errors.js';
import { paginated, pageRequest, toPage } from './pagination.js';
import { userPk } from './path-params.js';
import { requireScope } from './require-scope.js';
import { readOnlyUserFields, setPasswordBody, userCreate, userListQuery, userPatch } from './schemas.js';
import { validateBody, validateQuery } from './validate.js';

interface UserListQuery {
  page?: number;
  page_size?: number;
  groups?: string[];
  email?: string;
  search?: string;
  is_active?: boolean;
}

export function userRoutes(router: Router, store: Store, settings: Settings): void {
  const read = requireScope('users:read');
  const write = requireScope('users:write');

  router.get('/users/', read, async (ctx) => {
    const query = validateQuery<UserListQuery>(userListQuery, ctx.query);
    const request = pageRequest(query, settings.api);
    const { total, results } = await listUsers(
      store,
      {
        groups: query.groups?.map((uuid) => uuid.toLowerCase()),
        email: query.email,
        search: query.search,
        is_active: query.is_active,
      },
      toPage(request),
    );
    ctx.body = paginated(ctx, settings.issuer.base_url, request, total, results);
  });

  router.post('/users/', write, async (ctx) => {
    const input = validateBody<CreateUser>(userCreate, ctx.request.body, readOnlyUserFields);
    ctx.status = 201;
    ctx.body = await createUser(store, { ...input, groups: input.groups?.map((uuid) => uuid.toLowerCase()) });
  });

  router.get('/users/:pk/', read, async (ctx) => {
    ctx.body = await getUser(store, userPk(ctx.params.pk));
  });

  router.patch('/users/:pk/', write, async (ctx) => {
    const pk = userPk(ctx.params.pk);
    const body = ctx.request.body as Record<string, unknown>;
    if (body && typeof body === 'object' && 'groups' in body) {
      throw fieldErrors({ groups: ['Groups are set on create only; use POST /groups/{group_pk}/add_user/ or remove_user/.'] });
    }
    const changes = validateBody<UpdateUser>(userPatch, body, readOnlyUserFields);
    ctx.body = await updateUser(store, pk, changes);
  });

  router.post('/users/:pk/set_password/', write, async (ctx) => {
    const pk = userPk(ctx.params.pk);
    const { password } = validateBody<{ password: string }>(setPasswordBody, ctx.request.body);
    await setPassword(store, pk, password, settings.passwords);
    ctx.status = 204;
  });

  // A one-time link (24 h) to a page where the user sets a password; it also marks the e-mail verified.
  router.post('/users/:pk/recovery/', write, async (ctx) => {
    const link = await createRecoveryLink(store, settings.issuer.base_url, userPk(ctx.params.pk), settings.secrets.key);
    ctx.body = { link };
  });

  // Removes the TOTP secret and the recovery codes (lost device); the next sign-in enrols again where MFA is required.
  router.delete('/users/:pk/mfa/', write, async (ctx) => {
    const user = await getUser(store, userPk(ctx.params.pk)); // 404 for an unknown user
    await removeMfa(store, { id: user.pk, uuid: user.uuid });
    ctx.status = 204;
  });

  router.delete('/users/:pk/', write, async (ctx) => {
    await deleteUser(store, userPk(ctx.params.pk));
    ctx.status = 204;
  });
}
