/** What every console page shares: its frame (navigation, who is signed in, the CSRF token), paging, a confirmation. */
import type { AccountContext } from '../account/account-session.js';
import { renderPage } from '../pages/render-page.js';
import { PageError } from '../errors.js';

export const PAGE_SIZE = 25;

export type Section = 'overview' | 'users' | 'groups' | 'applications' | 'deliveries' | 'audit' | 'tokens';

export const frame = (ctx: AccountContext, title: string, current: Section) => ({
  title: `${title} · Admin console`,
  wide: true,
  current,
  admin: ctx.state.account.user,
  csrf: ctx.state.account.csrf,
});

/** A page of the generic console view (views/admin-page.eta): a heading, then blocks (lists, tables, forms, links). */
export function renderConsole(ctx: AccountContext, current: Section, page: Record<string, unknown> & { heading: string }, status = 200) {
  renderPage(ctx, 'admin-page', { ...frame(ctx, page.heading, current), ...page }, status);
}

/** The 1-based page number of the query, and its offset. */
export function pageOf(ctx: AccountContext) {
  const page = Math.max(1, Math.min(10_000, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1));
  return { page, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE };
}

/** "1–25 of 1003", and the links to the pages around, keeping the query's other parameters. */
export function paging(ctx: AccountContext, path: string, total: number, shown: number) {
  const { page, offset } = pageOf(ctx);
  const link = (to: number) => {
    const query = new URLSearchParams(
      Object.entries(ctx.query).flatMap(([key, value]) => (typeof value === 'string' && key !== 'page' && value ? [[key, value]] : [])),
    );
    query.set('page', String(to));
    return `${path}?${query}`;
  };
  return {
    status: total ? `${offset + 1}–${offset + shown} of ${total}` : undefined,
    pages: { previous: page > 1 ? link(page - 1) : undefined, next: offset + shown < total ? link(page + 1) : undefined },
  };
}

/** A confirmation page for what cannot be taken back: its form posts to `action` with the CSRF token. */
export function renderConfirmation(
  ctx: AccountContext,
  current: Section,
  page: { heading: string; explain: string; button: string; action: string; back: string },
) {
  renderPage(ctx, 'admin-confirm', { ...frame(ctx, page.button, current), ...page });
}

/** A query parameter as trimmed text of at most `max` characters ('' when absent). */
export const queryText = (ctx: AccountContext, name: string, max = 100) =>
  typeof ctx.query[name] === 'string' ? (ctx.query[name] as string).trim().slice(0, max) : '';

/** A 404 page of the console that says what is missing and leads back to its list. */
export const notFound = (heading: string, message: string, back: { href: string; label: string }) =>
  new PageError(404, { title: 'Admin console', heading, message, link: back });

/** One choice of a select field in the generic view. */
export const option = (value: string, label = value) => ({ value, label });
