/**
 * The console's groups: find and create them; a group's page renames it, lists its members (paged), adds one by
 * e-mail and removes one, and deletes it after a confirmation. Every change through the API's domain functions (its
 * membership events, an access group's revocation) with the API's validation: a bad name is shown beside its field.
 */
import type { AccountContext } from '../account/account-session.js';
import type { AccountDeps } from '../account/state.js';
import { formField } from '../account/account-session.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { changeGroupMembership, createGroup, deleteGroup, getGroup, listGroups, updateGroup } from '../domain/groups.js';
import { listUsers } from '../domain/users.js';
import { validateBody } from '../http/validate.js';
import { groupCreate, groupPatch } from '../domain/directory-schemas.js';
import { pageOf, paging, queryText, renderConfirmation, renderConsole, notFound } from './frame.js';

type Context = AccountContext & { params: Record<string, string> };

const NOTICES: Record<string, string> = {
  created: 'The group was created.',
  renamed: 'The group was renamed.',
  added: 'Added to the group.',
  removed: 'Removed from the group.',
  deleted: 'The group was deleted; its members were told through the applications’ webhooks.',
};
const noticeOf = (ctx: AccountContext) => (typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined);

const fieldError = (error: unknown, field: string) => (error instanceof ValidationError ? error.fields[field]?.join(' ') : undefined);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function groupOfPath(deps: AccountDeps, pk: unknown) {
  try {
    if (!UUID.test(String(pk))) throw new NotFoundError('group');
    return await getGroup(deps.store, String(pk));
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw notFound('No such group', 'No group has this id (deleted, or never made).', { href: '/admin/groups/', label: 'Back to groups' });
  }
}

export function showGroups(deps: AccountDeps) {
  return async function showGroups(ctx: AccountContext, shown: { name?: string; error?: string; status?: number } = {}) {
    const query = queryText(ctx, 'q');
    const { offset, limit } = pageOf(ctx);
    const found = await listGroups(deps.store, query ? { search: query } : {}, { offset, limit });
    const pages = paging(ctx, '/admin/groups/', found.total, found.results.length);
    renderConsole(
      ctx,
      'groups',
      {
        heading: 'Groups',
        notice: noticeOf(ctx),
        blocks: [
          {
            form: {
              method: 'get',
              action: '/admin/groups/',
              search: true,
              id: 'search',
              button: 'Search',
              fields: [{ name: 'q', label: 'Name contains', type: 'search', value: query }],
            },
          },
          {
            status: pages.status,
            table: {
              caption: 'Groups',
              empty: 'No group matches.',
              columns: ['Name', 'Members'],
              rows: found.results.map((group) => [{ text: group.name, href: `/admin/groups/${group.pk}/` }, group.users_count]),
            },
            pages: pages.pages,
          },
          {
            title: 'New group',
            id: 'new',
            form: {
              action: '/admin/groups/',
              id: 'new',
              button: 'Create the group',
              fields: [{ name: 'name', label: 'Name', value: shown.name, required: true, error: shown.error }],
            },
          },
        ],
      },
      shown.status,
    );
  };
}

export function submitGroup(deps: AccountDeps) {
  const show = showGroups(deps);
  return async function submitGroup(ctx: AccountContext) {
    const name = formField(ctx, 'name').trim();
    try {
      const group = await createGroup(deps.store, validateBody<{ name: string }>(groupCreate, { name }));
      ctx.status = 303;
      return ctx.redirect(`/admin/groups/${group.pk}/?notice=created`);
    } catch (error) {
      const message = fieldError(error, 'name');
      if (!message) throw error;
      return show(ctx, { name, error: message, status: 400 });
    }
  };
}

export function showGroup(deps: AccountDeps) {
  return async function showGroup(ctx: Context, shown: { field?: string; value?: string; error?: string; status?: number } = {}) {
    const group = await groupOfPath(deps, ctx.params.pk);
    const { offset, limit } = pageOf(ctx);
    const members = await listUsers(deps.store, { groups: [group.pk] }, { offset, limit });
    const pages = paging(ctx, `/admin/groups/${group.pk}/`, members.total, members.results.length);
    const base = `/admin/groups/${group.pk}`;
    const errorOf = (field: string) => (shown.field === field ? shown.error : undefined);
    renderConsole(
      ctx,
      'groups',
      {
        heading: group.name,
        lead: `${group.users_count} member${group.users_count === 1 ? '' : 's'}`,
        notice: noticeOf(ctx),
        blocks: [
          {
            title: 'Members',
            id: 'members',
            status: pages.status,
            table: {
              caption: `Members of ${group.name}`,
              empty: 'Nobody is in this group.',
              columns: ['Name', 'E-mail', ''],
              rows: members.results.map((user) => [
                { text: user.name, href: `/admin/users/${user.pk}/` },
                user.email,
                { form: { action: `${base}/remove`, button: 'Remove', label: `Remove ${user.name}`, hidden: [['user', String(user.pk)]] } },
              ]),
            },
            pages: pages.pages,
          },
          {
            title: 'Add a member',
            id: 'add',
            form: {
              action: `${base}/add`,
              id: 'add',
              button: 'Add',
              fields: [
                {
                  name: 'email',
                  label: 'E-mail of the person',
                  type: 'email',
                  required: true,
                  value: shown.field === 'email' ? shown.value : '',
                  error: errorOf('email'),
                },
              ],
            },
          },
          {
            title: 'Rename',
            id: 'rename',
            form: {
              action: `${base}/rename`,
              id: 'rename',
              button: 'Rename',
              secondary: true,
              fields: [
                {
                  name: 'name',
                  label: 'Name',
                  required: true,
                  value: shown.field === 'name' ? shown.value : group.name,
                  error: errorOf('name'),
                },
              ],
            },
          },
          {
            title: 'Delete',
            id: 'delete',
            text: 'Its members stay; they leave the group.',
            links: [{ href: `${base}/confirm-delete`, label: 'Delete the group' }],
          },
        ],
      },
      shown.status,
    );
  };
}

export function changeGroup(deps: AccountDeps) {
  const show = showGroup(deps);
  return async function changeGroup(ctx: Context) {
    const group = await groupOfPath(deps, ctx.params.pk);
    const done = (notice: string) => {
      ctx.status = 303;
      ctx.redirect(`/admin/groups/${group.pk}/?notice=${notice}`);
    };
    switch (ctx.params.change) {
      case 'rename': {
        const name = formField(ctx, 'name').trim();
        try {
          await updateGroup(deps.store, group.pk, validateBody<{ name: string }>(groupPatch, { name }));
          return done('renamed');
        } catch (error) {
          const message = fieldError(error, 'name');
          if (!message) throw error;
          return show(ctx, { field: 'name', value: name, error: message, status: 400 });
        }
      }
      case 'add': {
        const email = formField(ctx, 'email').trim();
        const user = email ? await deps.store.users.findByEmail(email) : undefined;
        if (!user) return show(ctx, { field: 'email', value: email, error: 'Nobody has this e-mail address.', status: 400 });
        await changeGroupMembership(deps.store, group.pk, user.id, 'added', deps.settings.applications);
        return done('added');
      }
      case 'remove': {
        const id = Number(formField(ctx, 'user'));
        if (!Number.isSafeInteger(id) || !(await deps.store.users.findById(id))) return done('removed'); // nobody to remove
        await changeGroupMembership(deps.store, group.pk, id, 'removed', deps.settings.applications);
        return done('removed');
      }
      case 'delete':
        await deleteGroup(deps.store, group.pk, deps.settings.applications);
        ctx.status = 303;
        return ctx.redirect('/admin/groups/?notice=deleted');
      default:
        throw notFound('No such action', 'The console does not do that.', {
          href: `/admin/groups/${group.pk}/`,
          label: 'Back to the group',
        });
    }
  };
}

export function confirmGroupDelete(deps: AccountDeps) {
  return async function confirmGroupDelete(ctx: Context) {
    const group = await groupOfPath(deps, ctx.params.pk);
    renderConfirmation(ctx, 'groups', {
      heading: `Delete the group ${group.name}?`,
      explain: `Its ${group.users_count} member(s) leave it (each removal is a group_membership_change, and an access group's applications end their grants). The people stay.`,
      button: 'Delete the group',
      action: `/admin/groups/${group.pk}/delete`,
      back: `/admin/groups/${group.pk}/`,
    });
  };
}
