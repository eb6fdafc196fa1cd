/**
 * The console's pages that show (they change nothing): the overview, the people (search and pages at any size: the
 * API's own trigram search), and one person (profile, groups, second factors, where they are signed in, their
 * recent audit trail, and the actions an administrator takes for them).
 */
import type { AccountContext } from '../account/account-session.js';
import type { AccountDeps } from '../account/state.js';
import { renderPage } from '../pages/render-page.js';
import { getUser, listUsers } from '../domain/users.js';
import { listDeliveries } from '../domain/deliveries.js';
import { listAudit } from '../domain/audit-view.js';
import { hasTotp } from '../domain/totp.js';
import { hasPassword } from '../domain/passwords.js';
import { ACCOUNT_CLIENT_ID, ADMIN_CLIENT_ID } from '../domain/account-client.js';
import { listSessions } from '../domain/logout.js';
import { describeBrowser } from '../account/describe-browser.js';
import { frame, PAGE_SIZE, notFound } from './frame.js';

const days = (from: Date) => Math.floor((Date.now() - from.getTime()) / 86_400_000);

export function showOverview(deps: AccountDeps) {
  return async function showOverview(ctx: AccountContext) {
    const midnight = new Date();
    midnight.setUTCHours(0, 0, 0, 0);
    const one = { offset: 0, limit: 1 };
    const [everyone, active, signIns, failures, failed, pending, keys] = await Promise.all([
      listUsers(deps.store, {}, one),
      listUsers(deps.store, { is_active: true }, one),
      deps.store.audit.list({ action: 'sign_in.succeeded', since: midnight }, one),
      deps.store.audit.list({ action: 'sign_in.failed', since: midnight }, one),
      listDeliveries(deps.store, { status: 'failed' }, one),
      listDeliveries(deps.store, { status: 'pending' }, one),
      deps.store.signingKeys.list(),
    ]);
    renderPage(ctx, 'admin-overview', {
      ...frame(ctx, 'Overview', 'overview'),
      notice:
        ctx.query.notice === 'rotated' ? 'New signing keys were made; the service signs with them from its next key reload.' : undefined,
      people: { total: everyone.total, active: active.total },
      today: { signIns: signIns.total, failures: failures.total },
      deliveries: { failed: failed.total, pending: pending.total },
      keys: keys
        .filter((key) => key.state === 'active')
        .map((key) => ({ kid: key.kid, alg: key.alg, created: key.created_at.toISOString().slice(0, 10), age: days(key.created_at) })),
    });
  };
}

export function showUsers(deps: AccountDeps) {
  return async function showUsers(ctx: AccountContext) {
    const query = typeof ctx.query.q === 'string' ? ctx.query.q.trim().slice(0, 100) : '';
    const page = Math.max(1, Math.min(10_000, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1));
    const found = await listUsers(deps.store, query ? { search: query } : {}, { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE });
    const link = (to: number) => `/admin/users/?${new URLSearchParams({ ...(query ? { q: query } : {}), page: String(to) })}`;
    renderPage(ctx, 'admin-users', {
      ...frame(ctx, 'People', 'users'),
      query,
      total: found.total,
      users: found.results,
      first: found.total ? (page - 1) * PAGE_SIZE + 1 : 0,
      last: (page - 1) * PAGE_SIZE + found.results.length,
      previous: page > 1 ? link(page - 1) : undefined,
      next: page * PAGE_SIZE < found.total ? link(page + 1) : undefined,
    });
  };
}

/** The person the path names; a page that says so when there is none. */
export async function userOfPath(deps: AccountDeps, pk: unknown) {
  const id = /^[1-9][0-9]{0,15}$/.test(String(pk)) ? Number(pk) : NaN;
  const row = Number.isSafeInteger(id) ? await deps.store.users.findById(id) : undefined;
  if (!row)
    throw notFound('No such person', 'Nobody has this id (deleted, or never made).', { href: '/admin/users/', label: 'Back to people' });
  return row;
}

export const NOTICES: Record<string, string> = {
  created: 'The person was added.',
  saved: 'Saved.',
  'password-set': 'The password was set: their sessions ended, and they were told by e-mail.',
  'session-ended': 'That session ended; its applications were told.',
  unlinked: 'The link was removed: signing in there no longer signs them in here until they link it again.',
  deactivated: 'Deactivated: their sessions and tokens ended, and the applications were told.',
  reactivated: 'Reactivated: they can sign in again.',
  'second-factors-reset':
    'Their second factors were removed: their sessions ended, and they were told by e-mail. Where one is required, they enrol again at the next sign-in.',
  'sessions-ended': 'Signed out everywhere: every session, grant and token ended, and the applications were told.',
  'recovery-link': 'A link to set a password, valid for 24 hours, is below. Give it to them by a channel you trust.',
};

export function showUser(deps: AccountDeps) {
  return async function showUser(ctx: AccountContext & { params: Record<string, string> }) {
    const row = await userOfPath(deps, ctx.params.pk);
    const [user, totp, password, passkeys, clients, history, links, sessions] = await Promise.all([
      getUser(deps.store, row.id),
      hasTotp(deps.store, row.id),
      hasPassword(deps.store, row.id),
      deps.store.passkeys.listForUser(row.id),
      deps.store.oidcPayloads.grantedClients(row.uuid, new Date()),
      listAudit(deps.store, { user: row.uuid }, { offset: 0, limit: 20 }),
      deps.store.sourceLinks.listForUser(row.id),
      listSessions(deps.store, row.uuid),
    ]);
    const shown = (clientId: string) => clientId !== ACCOUNT_CLIENT_ID && clientId !== ADMIN_CLIENT_ID;
    const sourceName = (slug: string) => deps.settings.sources.find((source) => source.slug === slug)?.name ?? slug;
    const link = ctx.state.recoveryLink as string | undefined;
    const notice = link ? NOTICES['recovery-link'] : typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
    renderPage(ctx, 'admin-user', {
      ...frame(ctx, user.name, 'users'),
      user,
      totp,
      password,
      passkeys: passkeys.length,
      sessions: sessions.map((session) => ({
        id: session.id,
        at: session.signedInAt ? session.signedInAt.toISOString().slice(0, 16).replace('T', ' ') : 'unknown',
        how: session.amr.join(' + ') || 'unknown',
        what: describeBrowser(session.userAgent),
        last: session.lastSeen ? session.lastSeen.toISOString().slice(0, 16).replace('T', ' ') : '',
        apps:
          session.clients
            .filter(shown)
            .map((id) => deps.appName(id) ?? id)
            .join(', ') || 'no application',
      })),
      sources: links.map((link) => ({ slug: link.source, name: sourceName(link.source), subject: link.subject })),
      apps: clients.filter((id) => id !== ACCOUNT_CLIENT_ID && id !== ADMIN_CLIENT_ID).map((id) => deps.appName(id) ?? id),
      history: history.results.map((entry) => ({ ...entry, at: entry.at.slice(0, 19).replace('T', ' ') })),
      notice,
      link,
    });
  };
}
