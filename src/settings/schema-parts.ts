/** Shapes the configuration schema's files share. */
import type { JSONSchema } from 'json-schema-to-ts';

export const int = (minimum: number, description: string, maximum?: number) =>
  ({ type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }), description }) as const;

/** An object whose every key is required (config/default.yaml gives each a value). */
export const section = <P extends Record<string, JSONSchema>>(description: string, properties: P) =>
  ({
    type: 'object',
    description,
    additionalProperties: false,
    required: Object.keys(properties) as Array<keyof P & string>,
    properties,
  }) as const;
