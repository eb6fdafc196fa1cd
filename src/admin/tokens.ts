/**
 * The console's API tokens (made with scopes, shown once, revoked after a confirmation) and the signing keys'
 * rotation (after a confirmation; the running processes take the new keys at their next reload, as after
 * `idp keys rotate`).
 */
import type { AccountContext } from '../account/account-session.js';
import type { AccountDeps } from '../account/state.js';
import { formField } from '../account/account-session.js';
import { API_SCOPES, createApiToken, revokeApiToken } from '../domain/api-tokens.js';
import { rotateSigningKeys, signingAlgsOf } from '../domain/signing-keys.js';
import { renderConfirmation, renderConsole, notFound } from './frame.js';

type Context = AccountContext & { params: Record<string, string> };

const DAY_MS = 86_400_000;
const day = (date: Date | null) => (date ? date.toISOString().slice(0, 10) : '');

export function showTokens(deps: AccountDeps) {
  return async function showTokens(
    ctx: AccountContext,
    shown: {
      secret?: string;
      name?: string;
      scopes?: string[];
      days?: string;
      errors?: Record<string, string>;
      problem?: string;
      status?: number;
    } = {},
  ) {
    const now = Date.now();
    const tokens = (await deps.store.apiTokens.list()).filter(
      (token) => !token.revoked_at && (!token.expires_at || token.expires_at.getTime() > now),
    );
    renderConsole(
      ctx,
      'tokens',
      {
        heading: 'API tokens',
        notice: shown.secret
          ? 'The token is below. Copy it now: it is not shown again (only its hash is kept).'
          : ctx.query.notice === 'revoked'
            ? 'The token was revoked.'
            : undefined,
        secret: shown.secret,
        error: shown.problem,
        blocks: [
          {
            table: {
              caption: 'Tokens in use',
              empty: 'No token is in use.',
              columns: ['Name', 'Scopes', 'Created', 'Expires', 'Last used', ''],
              rows: tokens.map((token) => [
                token.name,
                token.scopes.join(' '),
                day(token.created_at),
                day(token.expires_at) || 'never',
                day(token.last_used_at) || 'never',
                { href: `/admin/tokens/${token.id}/confirm-revoke`, text: `Revoke ${token.name}` },
              ]),
            },
          },
          {
            title: 'New token',
            id: 'new',
            form: {
              action: '/admin/tokens/',
              id: 'new',
              button: 'Make the token',
              fields: [
                { name: 'name', label: 'Name (who or what uses it)', required: true, value: shown.name, error: shown.errors?.name },
                {
                  name: 'scopes',
                  label: 'Scopes',
                  type: 'checkboxes',
                  options: API_SCOPES.map((scope) => ({ value: scope, label: scope, checked: shown.scopes?.includes(scope) })),
                },
                { name: 'days', label: 'Expires after (days; empty: never)', type: 'number', value: shown.days, error: shown.errors?.days },
              ],
            },
          },
        ],
      },
      shown.status,
    );
  };
}

export function submitToken(deps: AccountDeps) {
  const show = showTokens(deps);
  return async function submitToken(ctx: AccountContext) {
    const name = formField(ctx, 'name').trim();
    const raw = ctx.request.body?.scopes;
    const scopes = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String);
    const days = formField(ctx, 'days').trim();
    const errors: Record<string, string> = {};
    if (!name || name.length > 100) errors.name = 'Give it a name of 1 to 100 characters.';
    if (days && !/^[1-9][0-9]{0,3}$/.test(days)) errors.days = 'A whole number of days from 1 to 9999, or empty.';
    const known = scopes.filter((scope): scope is (typeof API_SCOPES)[number] => (API_SCOPES as readonly string[]).includes(scope));
    const problem = !known.length || known.length !== scopes.length ? 'Choose at least one scope.' : undefined;
    if (Object.keys(errors).length || problem) return show(ctx, { name, scopes, days, errors, problem, status: 400 });
    const { token } = await createApiToken(deps.store, {
      name,
      scopes: known,
      expiresAt: days ? new Date(Date.now() + Number(days) * DAY_MS) : null,
    });
    return show(ctx, { secret: token, status: 201 });
  };
}

async function tokenOfPath(deps: AccountDeps, id: unknown) {
  const token = (await deps.store.apiTokens.list()).find((candidate) => candidate.id === String(id) && !candidate.revoked_at);
  if (!token)
    throw notFound('No such token', 'No token in use has this id (revoked, expired, or never made).', {
      href: '/admin/tokens/',
      label: 'Back to tokens',
    });
  return token;
}

export function confirmRevoke(deps: AccountDeps) {
  return async function confirmRevoke(ctx: Context) {
    const token = await tokenOfPath(deps, ctx.params.id);
    renderConfirmation(ctx, 'tokens', {
      heading: `Revoke the token ${token.name}?`,
      explain: `Whatever uses it (${token.scopes.join(' ')}) is refused from now on. This cannot be undone: a new token would be a new secret.`,
      button: 'Revoke the token',
      action: `/admin/tokens/${token.id}/revoke`,
      back: '/admin/tokens/',
    });
  };
}

export function submitRevoke(deps: AccountDeps) {
  return async function submitRevoke(ctx: Context) {
    const token = await tokenOfPath(deps, ctx.params.id);
    await revokeApiToken(deps.store, token.id);
    ctx.status = 303;
    ctx.redirect('/admin/tokens/?notice=revoked');
  };
}

export function confirmRotation() {
  return async function confirmRotation(ctx: AccountContext) {
    renderConfirmation(ctx, 'overview', {
      heading: 'Rotate the signing keys?',
      explain:
        'Every algorithm gets a new key; ID tokens are signed with it once the running processes reload their keys (keys.reload_seconds). The old keys stay published, so tokens signed before still verify.',
      button: 'Rotate the keys',
      action: '/admin/keys/rotate',
      back: '/admin/',
    });
  };
}

export function submitRotation(deps: AccountDeps) {
  return async function submitRotation(ctx: AccountContext) {
    await rotateSigningKeys(deps.store, deps.settings.secrets.key, signingAlgsOf(deps.settings.applications));
    ctx.status = 303;
    ctx.redirect('/admin/?notice=rotated');
  };
}
