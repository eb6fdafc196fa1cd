/** /users/ handlers: list, create, get, patch, delete. */
import type Router from '@koa/router';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import { createUser, deleteUser, getUser, listUsers, updateUser, type CreateUser, type UpdateUser } from '../domain/users.js';
import { createRecoveryLink } from '../domain/password-setup.js';
import { inviteUser } from '../domain/invitations.js';
import { changeCredentials } from '../domain/credential-changes.js';
import type { SendMail } from '../domain/mail.js';
import { fieldErrors } from './errors.js';
import { paginated, pageRequest, toPage } from './pagination.js';
import { sourceSlug, userPk } from './path-params.js';
import { listUserLinks, unlinkSource } from '../domain/source-links.js';
import { assertScope, requireScope } from '../http/require-scope.js';
import { readOnlyUserFields, setPasswordBody, userCreate, userListQuery, userPatch } from './schemas.js';
import { validateBody, validateQuery } from '../http/validate.js';

interface UserListQuery {
  page?: number;
  page_size?: number;
  groups?: string[];
  email?: string;
  search?: string;
  is_active?: boolean;
}

export function userRoutes(router: Router, store: Store, settings: Settings, sendMail: SendMail): void {
  const read = requireScope('users:read');
  const write = requireScope('users:write');
  const invitation = (userId: number) => ({
    userId,
    baseUrl: settings.issuer.base_url,
    key: settings.secrets.key,
    ttlSeconds: settings.invitations.ttl_seconds,
  });

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
    // Joining a group is a group change (an access group opens an application): it needs groups:write too.
    const groups = (ctx.request.body as { groups?: unknown } | undefined)?.groups;
    if (groups !== undefined && !(Array.isArray(groups) && groups.length === 0)) assertScope(ctx, 'groups:write', 'joining groups');
    const { send_invite: sendInvite, ...input } = validateBody<CreateUser & { send_invite?: boolean }>(
      userCreate,
      ctx.request.body,
      readOnlyUserFields,
    );
    const create = (tx: Store) =>
      createUser(tx, { ...input, groups: input.groups?.map((uuid) => uuid.toLowerCase()) }, settings.applications);
    // With send_invite, the user and their invitation land together or not at all (a mail queue that refuses: 503).
    ctx.body = sendInvite
      ? await store.transaction(async (tx) => {
          const user = await create(tx);
          await inviteUser(tx, sendMail, invitation(user.pk));
          return user;
        })
      : await create(store);
    ctx.status = 201;
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

  // Like every credential change: the user's sessions, grants and tokens end and a notice is mailed (503 when it cannot be queued).
  router.post('/users/:pk/set_password/', write, async (ctx) => {
    const pk = userPk(ctx.params.pk);
    const { password } = validateBody<{ password: string }>(setPasswordBody, ctx.request.body);
    await changeCredentials(store, sendMail, {
      userId: pk,
      change: { password, policy: settings.passwords },
      by: { kind: 'administrator' },
    });
    ctx.status = 204;
  });

  // A one-time link (24 h) to a page where the user sets a password; it also marks the e-mail verified.
  router.post('/users/:pk/recovery/', write, async (ctx) => {
    const link = await createRecoveryLink(store, settings.issuer.base_url, userPk(ctx.params.pk), settings.secrets.key);
    ctx.body = { link };
  });

  // Mails the user a link to choose a password (invitations.ttl_seconds); a new one withdraws the one before.
  router.post('/users/:pk/invite/', write, async (ctx) => {
    ctx.body = await inviteUser(store, sendMail, invitation(userPk(ctx.params.pk)));
  });

  // Removes the TOTP secret, the recovery codes and the passkeys (lost device): a credential change like set_password
  // (sessions end, a notice is mailed) when there was something to remove; the next sign-in enrols again where MFA is required.
  router.delete('/users/:pk/mfa/', write, async (ctx) => {
    await changeCredentials(store, sendMail, {
      userId: userPk(ctx.params.pk),
      change: { removeSecondFactors: true },
      by: { kind: 'administrator' },
    });
    ctx.status = 204;
  });

  // Links to upstream identity providers (docs/federation.md): listed, and removed by an operator.
  router.get('/users/:pk/sources/', read, async (ctx) => {
    ctx.body = { results: await listUserLinks(store, userPk(ctx.params.pk)) };
  });

  router.delete('/users/:pk/sources/:source/', write, async (ctx) => {
    await unlinkSource(store, userPk(ctx.params.pk), sourceSlug(ctx.params.source));
    ctx.status = 204;
  });

  router.delete('/users/:pk/', write, async (ctx) => {
    await deleteUser(store, userPk(ctx.params.pk));
    ctx.status = 204;
  });
}
