/** Validates merged configuration and turns the first problem into one line naming the key and the rule. */
import { Ajv, type ErrorObject } from 'ajv';
import { settingsSchema, type Settings } from './schema.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, verbose: true });
const check = ajv.compile<Settings>(settingsSchema);

/** `/applications/0/slug` → `applications[0].slug` */
function keyOf(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (extra) parts.push(extra);
  return parts.reduce((key, part) => (/^\d+$/.test(part) ? `${key}[${part}]` : key ? `${key}.${part}` : part), '');
}

/** Describes the rule of the key's schema as a whole, so a type error and a range error read the same. */
function describeRule(schema: Record<string, unknown>): string {
  const { type, minimum, maximum, enum: allowed, pattern } = schema as {
    type?: string; minimum?: number; maximum?: number; enum?: string[]; pattern?: string;
  };
  if (allowed) return `must be one of ${allowed.join(', ')}`;
  if (type === 'integer' || type === 'number') {
    const noun = type === 'integer' ? 'an integer' : 'a number';
    if (minimum !== undefined && maximum !== undefined) return `must be ${noun} between ${minimum} and ${maximum}`;
    if (minimum !== undefined) return `must be ${noun} ≥ ${minimum}`;
    return `must be ${noun}`;
  }
  if (type === 'string' && pattern) return `must match ${pattern} (${String(schema.description ?? '')})`.replace(' ()', '');
  if (type === 'boolean') return 'must be true or false';
  if (type === 'array') return 'must be a list';
  if (type === 'object') return 'must be a mapping';
  return `must be a ${type}`;
}

export function formatConfigError(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `config: ${keyOf(error.instancePath, extra)} is not a known key`;
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `config: ${keyOf(error.instancePath, missing)} is required`;
  }
  const key = keyOf(error.instancePath) || '(root)';
  return `config: ${key} ${describeRule(error.parentSchema as Record<string, unknown>)}`;
}

export function validateSettings(raw: unknown): Settings {
  if (check(raw)) return raw;
  throw new ConfigError(formatConfigError(check.errors![0]));
}
