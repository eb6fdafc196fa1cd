/**
 * The console's changes to a person's record: add a person (optionally mailing an invitation), edit their name,
 * e-mail, username and attributes, and remove a link to an upstream identity provider. The API's validation and
 * domain functions (events, audit, uniqueness): a problem is shown beside its field and nothing changes.
 */
import type { AccountContext } from '../account/account-session.js';
import type { AccountDeps } from '../account/state.js';
import { formField } from '../account/account-session.js';
import { ValidationError } from '../errors.js';
import { createUser, getUser, updateUser, type CreateUser } from '../domain/users.js';
import { inviteUser } from '../domain/invitations.js';
import { unlinkSource } from '../domain/source-links.js';
import { endOneSession } from '../domain/logout.js';
import { changeCredentials } from '../domain/credential-changes.js';
import { validateBody } from '../http/validate.js';
import { userCreate, userPatch } from '../domain/directory-schemas.js';
import { renderConsole } from './frame.js';
import { userOfPath } from './pages.js';

type Context = AccountContext & { params: Record<string, string> };
type Values = Record<'name' | 'email' | 'username' | 'attributes', string>;

const FIELDS: Array<[keyof Values, string, string]> = [
  ['name', 'Name', 'text'],
  ['email', 'E-mail', 'email'],
  ['username', 'Username (empty: the e-mail)', 'text'],
  ['attributes', 'Attributes (a JSON object)', 'text'],
];

function renderForm(
  ctx: AccountContext,
  page: { heading: string; action: string; button: string; values: Values; errors?: Record<string, string[]>; invite?: boolean },
  status = 200,
) {
  renderConsole(
    ctx,
    'users',
    {
      heading: page.heading,
      error: page.errors ? 'Nothing was saved: see below.' : undefined,
      blocks: [
        {
          form: {
            action: page.action,
            id: 'person',
            button: page.button,
            fields: [
              ...FIELDS.map(([name, label, type]) => ({
                name,
                label,
                type,
                value: page.values[name],
                required: name === 'name' || name === 'email',
                error: page.errors?.[name]?.join(' '),
              })),
              ...(page.invite
                ? [
                    {
                      name: 'invite',
                      label: 'Invitation',
                      type: 'checkboxes',
                      options: [{ value: 'yes', label: 'Mail them an invitation to choose a password' }],
                    },
                  ]
                : []),
            ],
          },
        },
      ],
    },
    status,
  );
}

const valuesOf = (ctx: AccountContext): Values => ({
  name: formField(ctx, 'name').trim(),
  email: formField(ctx, 'email').trim(),
  username: formField(ctx, 'username').trim(),
  attributes: formField(ctx, 'attributes').trim(),
});

/** The form as the API's body, or the problems by field. */
function bodyOf(values: Values): { body: Record<string, unknown> } | { errors: Record<string, string[]> } {
  let attributes: unknown;
  if (values.attributes) {
    try {
      attributes = JSON.parse(values.attributes);
    } catch {
      return { errors: { attributes: ['Write a JSON object, e.g. {"department": "Sales"}.'] } };
    }
  }
  return {
    body: {
      name: values.name,
      email: values.email,
      username: values.username || values.email,
      ...(attributes === undefined ? {} : { attributes }),
    },
  };
}

export function newPerson() {
  return async function newPerson(ctx: AccountContext) {
    renderForm(ctx, {
      heading: 'Add a person',
      action: '/admin/users/',
      button: 'Add',
      values: { name: '', email: '', username: '', attributes: '' },
      invite: true,
    });
  };
}

export function submitPerson(deps: AccountDeps) {
  return async function submitPerson(ctx: AccountContext) {
    const values = valuesOf(ctx);
    const form = { heading: 'Add a person', action: '/admin/users/', button: 'Add', values, invite: true };
    const parsed = bodyOf(values);
    if ('errors' in parsed) return renderForm(ctx, { ...form, errors: parsed.errors }, 400);
    const invitation = (userId: number) => ({
      userId,
      baseUrl: deps.settings.issuer.base_url,
      key: deps.settings.secrets.key,
      ttlSeconds: deps.settings.invitations.ttl_seconds,
    });
    try {
      const input = validateBody<CreateUser>(userCreate, parsed.body);
      // As the API's send_invite: the person and their invitation land together or not at all.
      const user =
        formField(ctx, 'invite') === 'yes'
          ? await deps.store.transaction(async (tx) => {
              const made = await createUser(tx, input, deps.settings.applications);
              await inviteUser(tx, deps.sendMail, invitation(made.pk));
              return made;
            })
          : await createUser(deps.store, input, deps.settings.applications);
      ctx.status = 303;
      return ctx.redirect(`/admin/users/${user.pk}/?notice=created`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return renderForm(ctx, { ...form, errors: besideTheFields(values, error.fields) }, 400);
    }
  };
}

/** An empty username is the e-mail: its problem (taken, too long) is shown beside the e-mail the person typed. */
function besideTheFields(values: Values, errors: Record<string, string[]>): Record<string, string[]> {
  if (values.username || !errors.username) return errors;
  const { username, ...rest } = errors;
  return { ...rest, email: [...(rest.email ?? []), ...username] };
}

export function editPerson(deps: AccountDeps) {
  return async function editPerson(ctx: Context) {
    const user = await getUser(deps.store, (await userOfPath(deps, ctx.params.pk)).id);
    renderForm(ctx, {
      heading: `Edit ${user.name}`,
      action: `/admin/users/${user.pk}/edit`,
      button: 'Save',
      values: { name: user.name, email: user.email, username: user.username, attributes: JSON.stringify(user.attributes) },
    });
  };
}

export function submitEdit(deps: AccountDeps) {
  return async function submitEdit(ctx: Context) {
    const row = await userOfPath(deps, ctx.params.pk);
    const values = valuesOf(ctx);
    const form = { heading: `Edit ${row.name}`, action: `/admin/users/${row.id}/edit`, button: 'Save', values };
    const parsed = bodyOf(values);
    if ('errors' in parsed) return renderForm(ctx, { ...form, errors: parsed.errors }, 400);
    try {
      await updateUser(deps.store, row.id, validateBody(userPatch, parsed.body));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return renderForm(ctx, { ...form, errors: besideTheFields(values, error.fields) }, 400);
    }
    ctx.status = 303;
    ctx.redirect(`/admin/users/${row.id}/?notice=saved`);
  };
}

export function submitUnlink(deps: AccountDeps) {
  return async function submitUnlink(ctx: Context) {
    const row = await userOfPath(deps, ctx.params.pk);
    await unlinkSource(deps.store, row.id, formField(ctx, 'source')).catch(() => undefined); // gone already: nothing to do
    ctx.status = 303;
    ctx.redirect(`/admin/users/${row.id}/?notice=unlinked`);
  };
}

export function submitEndSession(deps: AccountDeps) {
  return async function submitEndSession(ctx: Context) {
    const row = await userOfPath(deps, ctx.params.pk);
    await endOneSession(deps.store, row.uuid, formField(ctx, 'session')); // already ended: nothing to do
    ctx.status = 303;
    ctx.redirect(`/admin/users/${row.id}/?notice=session-ended`);
  };
}

function renderPasswordForm(ctx: AccountContext, user: { id: number; name: string }, minLength: number, error?: string) {
  renderConsole(
    ctx,
    'users',
    {
      heading: `Set a password for ${user.name}`,
      lead: 'Like every credential change, their sessions and tokens end and they are told by e-mail. A password link lets them choose one themselves instead.',
      blocks: [
        {
          form: {
            action: `/admin/users/${user.id}/password`,
            id: 'password',
            button: 'Set the password',
            fields: [
              { name: 'password', label: `New password (at least ${minLength} characters)`, type: 'password', required: true, error },
            ],
          },
        },
      ],
    },
    error ? 400 : 200,
  );
}

export function showPasswordForm(deps: AccountDeps) {
  return async function showPasswordForm(ctx: Context) {
    const user = await userOfPath(deps, ctx.params.pk);
    renderPasswordForm(ctx, user, deps.settings.passwords.min_length);
  };
}

export function submitPassword(deps: AccountDeps) {
  return async function submitPassword(ctx: Context) {
    const user = await userOfPath(deps, ctx.params.pk);
    try {
      await changeCredentials(deps.store, deps.sendMail, {
        userId: user.id,
        change: { password: formField(ctx, 'password'), policy: deps.settings.passwords },
        by: { kind: 'administrator' },
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return renderPasswordForm(ctx, user, deps.settings.passwords.min_length, Object.values(error.fields).flat().join(' '));
    }
    ctx.status = 303;
    ctx.redirect(`/admin/users/${user.id}/?notice=password-set`);
  };
}
