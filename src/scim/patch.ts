/**
 * PATCH (RFC 7644 §3.5.2) applied to a resource in canonical form (conform.ts), in memory: every operation of the
 * request in order, then the caller writes the result in one transaction — so several operations land together
 * or, on any error, not at all. Accepted beside the RFC, as Entra ID and Okta send them: op names in any case
 * (`Replace`), path-less values whose keys are paths (`{"name.givenName": "Ada"}`, `{"emails[type eq \"work\"].value": …}`),
 * `remove` of members given as a value list, and a filtered add/replace that matches nothing creating the value
 * its `eq` terms describe (`emails[type eq "work"].value` on a user without one). Removing what is not there is
 * not an error. Booleans as strings are read by conform.ts when the result is read.
 */
import { invalidValue, scimError } from './errors.js';
import { booleanOf, isObject, type Resource } from './conform.js';
import { parsePatchPath, type Filter, type Literal } from './filter.js';
import { attributesOf, extensionUrn, findAttribute, PATCH_OP, type Attribute, type ResourceSchema } from './schemas.js';

type Op = 'add' | 'replace' | 'remove';

const MAX_OPERATIONS = 1000;

const invalidPath = (detail: string) => scimError(400, 'invalidPath', detail);
const invalidSyntax = (detail: string) => scimError(400, 'invalidSyntax', detail);

interface Target {
  container: Resource;
  attribute: Attribute;
  sub?: Attribute;
  filter?: Filter;
}

/** Whether one value of a multi-valued attribute matches a value filter (`type eq "work"`, `value eq "…"`). */
function matches(item: unknown, filter: Filter, attribute: Attribute): boolean {
  if (!isObject(item)) return false;
  switch (filter.op) {
    case 'and':
      return matches(item, filter.left, attribute) && matches(item, filter.right, attribute);
    case 'or':
      return matches(item, filter.left, attribute) || matches(item, filter.right, attribute);
    case 'not':
      return !matches(item, filter.filter, attribute);
    case 'valuePath':
      throw invalidPath('A value filter cannot hold another.');
    default: {
      if (filter.path.subAttribute || filter.path.schema) throw invalidPath('A value filter names sub-attributes only (type, value, …).');
      const sub = findAttribute(attribute.subAttributes ?? [], filter.path.attribute);
      if (!sub) throw invalidPath(`${attribute.name} has no sub-attribute ${filter.path.attribute}.`);
      const actual = item[sub.name];
      if (filter.op === 'pr') return actual !== undefined && actual !== null && actual !== '';
      return compare(actual, filter.op, filter.value, sub);
    }
  }
}

function compare(
  actual: unknown,
  op: Exclude<Filter['op'], 'and' | 'or' | 'not' | 'valuePath' | 'pr'>,
  expected: Literal,
  sub: Attribute,
): boolean {
  if (sub.type === 'boolean') {
    const [a, b] = [booleanOf(actual) ?? false, booleanOf(expected)];
    return op === 'eq' ? a === b : op === 'ne' ? a !== b : false;
  }
  if (actual === undefined || actual === null) return op === 'ne';
  const [a, b] = sub.caseExact ? [String(actual), String(expected)] : [String(actual).toLowerCase(), String(expected).toLowerCase()];
  switch (op) {
    case 'eq':
      return a === b;
    case 'ne':
      return a !== b;
    case 'co':
      return a.includes(b);
    case 'sw':
      return a.startsWith(b);
    case 'ew':
      return a.endsWith(b);
    case 'gt':
      return a > b;
    case 'ge':
      return a >= b;
    case 'lt':
      return a < b;
    case 'le':
      return a <= b;
  }
}

/** The value a filter of `eq` terms joined by `and` describes (`type eq "work"` → {type: "work"}); undefined otherwise. */
function describedBy(filter: Filter, attribute: Attribute): Resource | undefined {
  if (filter.op === 'and') {
    const [left, right] = [describedBy(filter.left, attribute), describedBy(filter.right, attribute)];
    return left && right ? { ...left, ...right } : undefined;
  }
  if (filter.op !== 'eq' || filter.path.subAttribute) return undefined;
  const sub = findAttribute(attribute.subAttributes ?? [], filter.path.attribute);
  return sub ? { [sub.name]: filter.value } : undefined;
}

function resolve(resource: Resource, schema: ResourceSchema, text: string): Target {
  const { path, filter } = parsePatchPath(text);
  const urn = path.schema && path.schema.toLowerCase() !== schema.core.toLowerCase() ? extensionUrn(schema, path.schema) : undefined;
  if (path.schema && !urn && path.schema.toLowerCase() !== schema.core.toLowerCase()) {
    throw invalidPath(`The schema ${path.schema} is not one of this resource's.`);
  }
  const attributes = attributesOf(schema, urn)!;
  const attribute = findAttribute(attributes, path.attribute);
  if (!attribute) throw invalidPath(`${schema.name} has no attribute ${path.attribute}.`);
  if (attribute.mutability === 'readOnly') throw scimError(400, 'mutability', `${attribute.name} is read-only.`);
  let sub: Attribute | undefined;
  if (path.subAttribute) {
    sub = findAttribute(attribute.subAttributes ?? [], path.subAttribute);
    if (!sub) throw invalidPath(`${attribute.name} has no sub-attribute ${path.subAttribute}.`);
    if (sub.mutability === 'readOnly') throw scimError(400, 'mutability', `${attribute.name}.${sub.name} is read-only.`);
  }
  if (filter && !attribute.multiValued) throw invalidPath(`${attribute.name} is not multi-valued: a value filter does not apply.`);
  const container = urn ? ((resource[urn] ??= {}) as Resource) : resource;
  return { container, attribute, sub, filter };
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** Identity of a value in a list: its `value` sub-attribute (case-insensitively) when it has one. */
const identity = (item: unknown) =>
  isObject(item) && typeof item.value === 'string' ? `value:${item.value.toLowerCase()}` : `json:${JSON.stringify(item)}`;

function addToList(current: unknown, values: unknown[]): unknown[] {
  const list = asList(current);
  const seen = new Set(list.map(identity));
  for (const value of values) {
    if (seen.has(identity(value))) continue;
    seen.add(identity(value));
    list.push(value);
  }
  return list;
}

function applyAt(op: Op, target: Target, value: unknown): void {
  const { container, attribute, sub, filter } = target;
  const name = attribute.name;
  const removing = op === 'remove' || value === null;
  if (filter) {
    const list = asList(container[name]);
    const matched = list.filter((item) => matches(item, filter, attribute));
    if (removing) {
      if (sub) for (const item of matched) delete (item as Resource)[sub.name];
      else container[name] = list.filter((item) => !matched.includes(item));
      return;
    }
    if (!matched.length) {
      const described = describedBy(filter, attribute);
      if (!described) throw scimError(400, 'noTarget', `No value of ${name} matches the filter.`);
      const created = sub ? { ...described, [sub.name]: value } : { ...described, ...(isObject(value) ? value : { value }) };
      container[name] = [...list, created];
      return;
    }
    for (const item of matched as Resource[]) {
      if (sub) item[sub.name] = value;
      else if (!isObject(value)) throw invalidValue(`The value for ${name}[…] must be an object.`);
      else if (op === 'add') Object.assign(item, value);
      else {
        for (const key of Object.keys(item)) delete item[key];
        Object.assign(item, value);
      }
    }
    return;
  }
  if (sub) {
    if (attribute.multiValued) {
      const list = asList(container[name]);
      if (removing) list.forEach((item) => isObject(item) && delete item[sub.name]);
      else if (!list.length) container[name] = [{ [sub.name]: value }];
      else list.forEach((item) => isObject(item) && (item[sub.name] = value));
      return;
    }
    const current = isObject(container[name]) ? (container[name] as Resource) : {};
    if (removing) delete current[sub.name];
    else current[sub.name] = value;
    container[name] = current;
    return;
  }
  if (removing) {
    // `remove` of some values of a list, given as a value (Entra ID: members [{"value": id}]).
    if (attribute.multiValued && op === 'remove' && value !== undefined && value !== null) {
      const gone = new Set(asList(value).map(identity));
      container[name] = asList(container[name]).filter((item) => !gone.has(identity(item)));
    } else delete container[name];
    return;
  }
  const current = container[name];
  if (attribute.multiValued) container[name] = op === 'add' ? addToList(current, asList(value)) : asList(value);
  else if (attribute.type === 'complex' && isObject(value)) container[name] = { ...(isObject(current) ? current : {}), ...value };
  else container[name] = value;
}

function apply(resource: Resource, schema: ResourceSchema, op: Op, path: string | undefined, value: unknown): void {
  if (path === undefined) {
    if (op === 'remove') throw scimError(400, 'noTarget', 'remove needs a path.');
    if (!isObject(value)) throw invalidValue(`${op} without a path needs an object value.`);
    for (const [key, item] of Object.entries(value)) {
      // A client may send the resource as it read it (Okta: with its id): what is read-only is left out, as in PUT.
      if (key.toLowerCase() === 'schemas' || findAttribute(attributesOf(schema)!, key)?.mutability === 'readOnly') continue;
      apply(resource, schema, op, key, item);
    }
    return;
  }
  // The path names a whole schema (an extension, or the core one): its attributes, one by one.
  const urn = extensionUrn(schema, path) ?? (path.toLowerCase() === schema.core.toLowerCase() ? schema.core : undefined);
  if (urn) {
    if (op === 'remove' && urn !== schema.core) return void delete resource[urn];
    if (!isObject(value)) throw invalidValue(`The value for ${urn} must be an object.`);
    for (const [key, item] of Object.entries(value)) apply(resource, schema, op, `${urn}:${key}`, item);
    return;
  }
  const target = resolve(resource, schema, path);
  if (op !== 'remove' && value === undefined) throw invalidValue(`${op} of ${path} needs a value.`);
  applyAt(op, target, value);
}

/** `resource` (canonical, changed in place and returned) after the operations of a PatchOp body. */
export function applyPatch(resource: Resource, body: unknown, schema: ResourceSchema): Resource {
  if (!isObject(body)) throw invalidSyntax('The body must be a PatchOp object.');
  const schemas = body.schemas;
  if (schemas !== undefined && !(Array.isArray(schemas) && schemas.includes(PATCH_OP))) {
    throw invalidSyntax(`schemas must be ["${PATCH_OP}"].`);
  }
  const key = Object.keys(body).find((name) => name.toLowerCase() === 'operations');
  const operations = key ? body[key] : undefined;
  if (!Array.isArray(operations) || !operations.length) throw invalidSyntax('Operations must be a non-empty list.');
  if (operations.length > MAX_OPERATIONS) throw invalidSyntax(`At most ${MAX_OPERATIONS} operations per request.`);
  for (const operation of operations) {
    if (!isObject(operation)) throw invalidSyntax('Each operation must be an object.');
    const field = (name: string) => operation[Object.keys(operation).find((k) => k.toLowerCase() === name) ?? name];
    const op = typeof field('op') === 'string' ? (field('op') as string).toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw invalidSyntax('op must be add, replace or remove.');
    const rawPath = field('path');
    let path: string | undefined;
    if (rawPath !== undefined) {
      if (typeof rawPath !== 'string' || !rawPath.trim()) throw invalidPath('path must be a non-empty string.');
      path = rawPath.trim();
    }
    apply(resource, schema, op, path, field('value'));
  }
  return resource;
}
