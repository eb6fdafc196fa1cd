/**
 * `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5, §3.9): which attributes an answer carries. Names are
 * case-insensitive and may be qualified (`name.givenName`, `urn:…:enterprise:2.0:User:department`, or a whole
 * extension by its URN); `id` and `schemas` are always returned. Unknown names select nothing.
 */
import { isObject, type Resource } from './conform.js';
import { scimError } from './errors.js';
import type { ResourceSchema } from './schemas.js';

export interface Projection {
  attributes?: string[];
  excludedAttributes?: string[];
}

const ALWAYS = new Set(['id', 'schemas']);
const MAX_NAMES = 100;

/** A comma-separated list from a query parameter or a SearchRequest (a list of strings). */
export function namesOf(value: unknown, parameter: string): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((item) => typeof item === 'string'))
    throw scimError(400, 'invalidValue', `${parameter} must be a comma-separated list of attribute names.`);
  const names = (list as string[])
    .flatMap((item) => item.split(','))
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length > MAX_NAMES) throw scimError(400, 'invalidValue', `${parameter} names at most ${MAX_NAMES} attributes.`);
  return names.length ? names : undefined;
}

/** [container key or undefined for the core, attribute, sub-attribute] of a name, in the resource's own spelling. */
function locate(resource: Resource, schema: ResourceSchema, name: string): [string | undefined, string | undefined, string | undefined] {
  const keyOf = (object: unknown, key: string) =>
    isObject(object) ? Object.keys(object).find((k) => k.toLowerCase() === key.toLowerCase()) : undefined;
  let container: string | undefined;
  let rest = name;
  const urn = [schema.core, ...Object.keys(schema.extensions)].find((known) => name.toLowerCase().startsWith(known.toLowerCase()));
  if (urn) {
    rest = name.slice(urn.length).replace(/^:/, '');
    if (urn !== schema.core) {
      container = keyOf(resource, urn);
      if (!container) return [undefined, undefined, undefined];
      if (!rest) return [undefined, container, undefined];
    }
  }
  const [attribute, sub] = rest.split('.');
  const holder = container ? resource[container] : resource;
  const key = keyOf(holder, attribute ?? '');
  if (!key) return [container, undefined, undefined];
  const value = (holder as Resource)[key];
  const item = Array.isArray(value) ? value[0] : value;
  return [container, key, sub ? (keyOf(item, sub) ?? sub) : undefined];
}

function pick(value: unknown, sub: string): unknown {
  if (Array.isArray(value)) return value.map((item) => (isObject(item) && sub in item ? { [sub]: item[sub] } : {}));
  return isObject(value) && sub in value ? { [sub]: value[sub] } : undefined;
}

function merge(into: Resource, key: string, value: unknown): void {
  if (value === undefined) return;
  const existing = into[key];
  if (Array.isArray(existing) && Array.isArray(value))
    into[key] = existing.map((item, i) => ({ ...(item as Resource), ...(value[i] as Resource) }));
  else if (isObject(existing) && isObject(value)) into[key] = { ...existing, ...value };
  else into[key] = value;
}

export function project(resource: Resource, schema: ResourceSchema, { attributes, excludedAttributes }: Projection): Resource {
  if (attributes) {
    const result: Resource = { schemas: resource.schemas, id: resource.id };
    for (const name of attributes) {
      const [container, key, sub] = locate(resource, schema, name);
      if (!key) continue;
      const holder = (container ? resource[container] : resource) as Resource;
      const value = sub ? pick(holder[key], sub) : holder[key];
      if (container) {
        const into = (result[container] ??= {}) as Resource;
        merge(into, key, value);
      } else merge(result, key, value);
    }
    return result;
  }
  if (excludedAttributes) {
    const result: Resource = structuredClone(resource);
    for (const name of excludedAttributes) {
      const [container, key, sub] = locate(result, schema, name);
      if (!key || (!container && ALWAYS.has(key))) continue;
      const holder = (container ? result[container] : result) as Resource;
      if (!sub) delete holder[key];
      else for (const item of Array.isArray(holder[key]) ? holder[key] : [holder[key]]) if (isObject(item)) delete item[sub];
    }
    return result;
  }
  return resource;
}
