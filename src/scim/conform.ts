/**
 * Reads a SCIM resource as a client sent it into its canonical form: attribute names as the schema spells them
 * (names are case-insensitive, RFC 7643 §2.1), extension attributes under their URN, types checked and the usual
 * liberties of real clients accepted — booleans as strings (Entra ID sends "False"), a lone value where a list is
 * due, a manager given as its id. Read-only attributes (id, meta, groups) and attributes the schema does not know
 * are dropped: the server sets the former, and clients send the latter for other services.
 */
import { inputProblem } from '../domain/input-text.js';
import { invalidValue, scimError } from './errors.js';
import { attributesOf, extensionUrn, findAttribute, type Attribute, type ResourceSchema } from './schemas.js';

export type Resource = Record<string, unknown>;

/** Longest text a single attribute value may hold. */
export const MAX_TEXT = 1024;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** true/false, or the strings "true"/"false" in any case; undefined for anything else. */
export function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  return undefined;
}

function simple(value: unknown, attribute: Attribute, name: string): unknown {
  if (attribute.type === 'boolean') {
    const flag = booleanOf(value);
    if (flag === undefined) throw invalidValue(`${name} must be true or false.`);
    return flag;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw invalidValue(`${name} must be a string.`);
  if (value.length > MAX_TEXT) throw invalidValue(`${name} is longer than ${MAX_TEXT} characters.`);
  return value;
}

function single(value: unknown, attribute: Attribute, name: string): unknown {
  if (attribute.type !== 'complex') return simple(value, attribute, name);
  // A complex attribute given as its value alone (Entra ID's manager: "the-id").
  const object = isObject(value) ? value : findAttribute(attribute.subAttributes!, 'value') ? { value } : undefined;
  if (!object) throw invalidValue(`${name} must be an object.`);
  const result: Resource = {};
  for (const [key, item] of Object.entries(object)) {
    const sub = findAttribute(attribute.subAttributes!, key);
    if (!sub || item === null || item === undefined || sub.mutability === 'readOnly') continue;
    result[sub.name] = simple(item, sub, `${name}.${sub.name}`);
  }
  return result;
}

/** One attribute's value in canonical form; undefined when it is absent (null, or an empty list). */
export function conformValue(value: unknown, attribute: Attribute, name: string): unknown {
  if (value === null || value === undefined) return undefined;
  if (!attribute.multiValued) return single(value, attribute, name);
  const items = (Array.isArray(value) ? value : [value]).filter((item) => item !== null && item !== undefined);
  const result = items.map((item) => single(item, attribute, name));
  return result.length ? result : undefined;
}

function conformAttributes(into: Resource, object: Record<string, unknown>, attributes: Attribute[], prefix: string): void {
  for (const [key, value] of Object.entries(object)) {
    const attribute = findAttribute(attributes, key);
    if (!attribute || attribute.mutability === 'readOnly') continue;
    const conformed = conformValue(value, attribute, `${prefix}${attribute.name}`);
    if (conformed !== undefined) into[attribute.name] = conformed;
  }
}

/** The resource in canonical form, without read-only attributes; 400 for a body that is not one. */
export function conform(body: unknown, schema: ResourceSchema): Resource {
  if (!isObject(body)) throw scimError(400, 'invalidSyntax', 'The body must be a JSON object (a SCIM resource).');
  const problem = inputProblem(body);
  if (problem) throw invalidValue(problem);
  const resource: Resource = {};
  const core: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key.toLowerCase() === 'schemas') continue;
    const urn = extensionUrn(schema, key);
    if (urn) {
      if (value === null) continue;
      if (!isObject(value)) throw invalidValue(`${urn} must be an object.`);
      const extension: Resource = {};
      conformAttributes(extension, value, schema.extensions[urn]!, `${urn}:`);
      resource[urn] = { ...(resource[urn] as Resource | undefined), ...extension };
      continue;
    }
    // A fully qualified attribute name: urn:…:User:userName, urn:…:enterprise:2.0:User:department.
    const qualified = /^(urn:.+):([^:]+)$/i.exec(key);
    if (qualified) {
      const [, prefix, name] = qualified;
      const extension = extensionUrn(schema, prefix!);
      if (extension) {
        const into: Resource = { ...(resource[extension] as Resource | undefined) };
        conformAttributes(into, { [name!]: value }, schema.extensions[extension]!, `${extension}:`);
        resource[extension] = into;
      } else if (prefix!.toLowerCase() === schema.core.toLowerCase()) core[name!] = value;
      continue;
    }
    core[key] = value;
  }
  conformAttributes(resource, core, attributesOf(schema)!, '');
  for (const urn of Object.keys(schema.extensions)) {
    if (resource[urn] && !Object.keys(resource[urn] as Resource).length) delete resource[urn];
  }
  return resource;
}
