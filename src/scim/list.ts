/**
 * Lists (RFC 7644 §3.4.2): `filter`, `startIndex` (1-based), `count`, `attributes`, `excludedAttributes`, from the
 * query string or a SearchRequest body (POST …/.search); the ListResponse around a page. Sorting is not supported
 * (ServiceProviderConfig says so): `sortBy` and `sortOrder` are ignored and the order is the store's, stable.
 */
import type { Context } from 'koa';
import type { Page } from '../store/contract.js';
import { isObject, type Resource } from './conform.js';
import { scimError } from './errors.js';
import { parseFilter, type Filter } from './filter.js';
import { namesOf, type Projection } from './projection.js';
import { LIST_RESPONSE, SEARCH_REQUEST } from './schemas.js';

export interface ListRequest {
  filter?: Filter;
  startIndex: number;
  count: number;
  projection: Projection;
}

const MAX_START = 2_147_483_647;

/** Parameters by lower-cased name: SCIM clients do not agree on their case. */
function byName(source: Record<string, unknown>): (name: string) => unknown {
  const entries = Object.entries(source).map(([key, value]) => [key.toLowerCase(), value] as const);
  return (name) => entries.find(([key]) => key === name.toLowerCase())?.[1];
}

function integer(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const text = Array.isArray(value) ? value[0] : value;
  const number = typeof text === 'number' ? text : typeof text === 'string' && /^-?\d{1,15}$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isInteger(number)) throw scimError(400, 'invalidValue', `${name} must be an integer.`);
  return number;
}

export function projectionOf(source: Record<string, unknown>): Projection {
  const get = byName(source);
  const attributes = namesOf(get('attributes'), 'attributes');
  const excludedAttributes = namesOf(get('excludedAttributes'), 'excludedAttributes');
  if (attributes && excludedAttributes) throw scimError(400, 'invalidValue', 'Give attributes or excludedAttributes, not both.');
  return { attributes, excludedAttributes };
}

export function listRequest(source: Record<string, unknown>, maxResults: number): ListRequest {
  const get = byName(source);
  const rawFilter = get('filter');
  if (rawFilter !== undefined && typeof rawFilter !== 'string') throw scimError(400, 'invalidFilter', 'Give one filter.');
  const filterText = typeof rawFilter === 'string' ? rawFilter : undefined;
  // RFC 7644 §3.4.2.4: a startIndex below 1 means 1, a negative count means 0; a count above the maximum is cut to it.
  const startIndex = Math.min(Math.max(integer(get('startIndex'), 'startIndex') ?? 1, 1), MAX_START);
  const count = Math.min(Math.max(integer(get('count'), 'count') ?? maxResults, 0), maxResults);
  return {
    ...(filterText !== undefined && filterText.trim() ? { filter: parseFilter(filterText) } : {}),
    startIndex,
    count,
    projection: projectionOf(source),
  };
}

/** The parameters of a SearchRequest body (POST /Users/.search). */
export function searchParameters(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw scimError(400, 'invalidSyntax', 'The body must be a SearchRequest object.');
  const schemas = body.schemas;
  if (schemas !== undefined && !(Array.isArray(schemas) && schemas.includes(SEARCH_REQUEST))) {
    throw scimError(400, 'invalidSyntax', `schemas must be ["${SEARCH_REQUEST}"].`);
  }
  return body;
}

export const pageOf = (request: ListRequest): Page => ({ offset: request.startIndex - 1, limit: request.count });

export function listResponse(ctx: Context, request: ListRequest, total: number, resources: Resource[]): void {
  ctx.status = 200;
  ctx.body = {
    schemas: [LIST_RESPONSE],
    totalResults: total,
    startIndex: request.startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
