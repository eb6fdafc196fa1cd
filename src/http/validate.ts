/**
 * Validates bodies and query strings with ajv; a problem is a ValidationError with its field map (the API answers it
 * as DRF's `{"field": ["..."]}`, the console shows each beside its field).
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { ValidationError } from '../errors.js';
import { inputProblem } from '../domain/input-text.js';
import { UUID } from '../uuid.js';
import { EMAIL_ADDRESS } from '../domain/email-address.js';

const bodies = new Ajv({ allErrors: true, strict: true });
const queries = new Ajv({ allErrors: true, strict: true, coerceTypes: 'array', useDefaults: true });
for (const ajv of [bodies, queries]) {
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  // ajv-formats' uuid also takes "urn:uuid:…", which no uuid column stores; ours is the bare form only.
  ajv.addFormat('uuid', UUID);
  // The domain's one address rule, which the account page applies too.
  ajv.addFormat('email', EMAIL_ADDRESS);
}

function message(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'This field is required.';
    case 'additionalProperties':
      return 'Unknown field.';
    case 'minLength':
      return params.limit === 1 ? 'This field may not be blank.' : `Ensure this field has at least ${params.limit} characters.`;
    case 'pattern':
      return params.pattern === '\\S' ? 'This field may not be blank.' : 'This value does not have the required format.';
    case 'maxLength':
      return `Ensure this field has no more than ${params.limit} characters.`;
    case 'minimum':
      return `Ensure this value is greater than or equal to ${params.limit}.`;
    case 'maximum':
      return `Ensure this value is less than or equal to ${params.limit}.`;
    case 'enum':
      return `Select one of: ${(params.allowedValues as string[]).join(', ')}.`;
    case 'maxItems':
      return `Ensure this field has no more than ${params.limit} elements.`;
    case 'format':
      return params.format === 'email' ? 'Enter a valid email address.' : `Must be a valid ${String(params.format).toUpperCase()}.`;
    case 'type': {
      const type = params.type as string;
      return (
        (
          {
            integer: 'A valid integer is required.',
            boolean: 'Must be a valid boolean.',
            string: 'Not a valid string.',
            array: 'Expected a list of items.',
            object: 'Expected an object.',
          } as Record<string, string>
        )[type] ?? `Must be ${type}.`
      );
    }
    default:
      return error.message ?? 'Invalid value.';
  }
}

function fieldOf(error: ErrorObject): string {
  const params = error.params as Record<string, string>;
  if (error.keyword === 'required') return params.missingProperty!;
  if (error.keyword === 'additionalProperties') return params.additionalProperty!;
  return error.instancePath.split('/')[1] || 'non_field_errors';
}

/** A Map, not an object literal: a field named `constructor` or `__proto__` must be just a name. */
function toFieldMap(errors: ErrorObject[]): Record<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const error of errors) {
    const field = fieldOf(error);
    const list = fields.get(field) ?? [];
    const text = message(error);
    if (!list.includes(text)) list.push(text);
    fields.set(field, list);
  }
  return Object.fromEntries(fields);
}

/** Fields whose value (or key) holds text the service cannot keep, before any schema rule. */
function inputProblems(values: Record<string, unknown>): Record<string, string[]> | undefined {
  const problems = new Map<string, string[]>();
  for (const [field, value] of Object.entries(values)) {
    const problem = inputProblem(field) ?? inputProblem(value);
    if (problem) problems.set(inputProblem(field) ? 'non_field_errors' : field, [problem]);
  }
  return problems.size ? Object.fromEntries(problems) : undefined;
}

const cache = new WeakMap<object, ReturnType<Ajv['compile']>>();
function compiled(ajv: Ajv, schema: object) {
  let check = cache.get(schema);
  if (!check) cache.set(schema, (check = ajv.compile(schema)));
  return check;
}

/** Returns the body as T, or throws a ValidationError (400) with a field map. `ignore` names read-only fields dropped first. */
export function validateBody<T>(schema: object, body: unknown, ignore: readonly string[] = []): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError({
      non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(body) ? 'list' : typeof body}.`],
    });
  }
  const copy: Record<string, unknown> = { ...body };
  for (const key of ignore) delete copy[key];
  const problems = inputProblems(copy);
  if (problems) throw new ValidationError(problems);
  const check = compiled(bodies, schema);
  if (!check(copy)) throw new ValidationError(toFieldMap(check.errors!));
  return copy as T;
}

/** ajv coerces any numeric text ("Infinity", "0x10", "1e3"); a query integer is written in decimal digits. */
function notDecimal(
  schema: { properties: Record<string, { type?: string }> },
  values: Record<string, unknown>,
): Record<string, string[]> | undefined {
  const wrong = Object.keys(values).filter(
    (key) => schema.properties[key]?.type === 'integer' && !/^[+-]?\d{1,12}$/.test(String(values[key]).trim()),
  );
  return wrong.length ? Object.fromEntries(wrong.map((key) => [key, ['A valid integer is required.']])) : undefined;
}

/** Returns the query coerced to T (repeated parameters become arrays), or throws a ValidationError (400) with a field map. */
export function validateQuery<T>(schema: object & { properties: object }, query: Record<string, unknown>): T {
  const known: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) if (query[key] !== undefined) known[key] = query[key];
  const problems = inputProblems(known) ?? notDecimal(schema as never, known);
  if (problems) throw new ValidationError(problems);
  const check = compiled(queries, schema);
  if (!check(known)) throw new ValidationError(toFieldMap(check.errors!));
  return known as T;
}
