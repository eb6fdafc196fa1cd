/** Page-number pagination with absolute links built from the configured base URL (never the Host header). */
import type { Context } from 'koa';
import type { Page } from '../store/contract.js';
import { detail } from './errors.js';

export interface PageRequest {
  page: number;
  size: number;
}

export interface PageLimits {
  default_page_size: number;
  max_page_size: number;
}

export function pageRequest(query: { page?: number; page_size?: number }, limits: PageLimits): PageRequest {
  return { page: query.page ?? 1, size: Math.min(query.page_size ?? limits.default_page_size, limits.max_page_size) };
}

export const toPage = ({ page, size }: PageRequest): Page => ({ offset: (page - 1) * size, limit: size });

export function paginated<T>(ctx: Context, baseUrl: string, request: PageRequest, total: number, results: T[]) {
  const totalPages = Math.max(1, Math.ceil(total / request.size));
  if (request.page > totalPages) throw detail(404, 'Invalid page.');
  const link = (page: number) => {
    const params = new URLSearchParams(ctx.querystring);
    params.set('page', String(page));
    return `${baseUrl}${ctx.path}?${params}`;
  };
  const start = total ? (request.page - 1) * request.size + 1 : 0;
  return {
    pagination: {
      count: total,
      next: request.page < totalPages ? link(request.page + 1) : null,
      previous: request.page > 1 ? link(request.page - 1) : null,
      current: request.page,
      total_pages: totalPages,
      start_index: start,
      end_index: total ? start + results.length - 1 : 0,
    },
    results,
  };
}

/** A page cut from a short list read whole (API tokens, signing keys: a handful, made by hand), shown through `view`. */
export function paginatedSlice<T, V>(ctx: Context, baseUrl: string, request: PageRequest, rows: T[], view: (row: T) => V) {
  const { offset, limit } = toPage(request);
  return paginated(ctx, baseUrl, request, rows.length, rows.slice(offset, offset + limit).map(view));
}
