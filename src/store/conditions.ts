/**
 * Turns a Condition (contract.ts) into one SQL boolean expression, with every value a bound parameter. Case-
 * insensitive text compares as lower(column) op lower(value), the very expression of the unique indexes on
 * users.username, users.email and groups.name, so an equality filter on them is an index lookup.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Comparison, Condition } from './contract.js';
import { UUID } from '../uuid.js';

type Kind = 'text' | 'uuid' | 'boolean' | 'timestamp';

export interface Column {
  kind: Kind;
  sql: RawBuilder<unknown>;
}

/** A field of a related row (a user's groups, a group's members): matched when some relative matches. */
export interface Related {
  kind: 'related';
  column: Column;
  /** `exists (… and <inner>)` over the relatives. */
  exists(inner: RawBuilder<boolean>): RawBuilder<boolean>;
}

export type Field = Column | Related;

/** The fields of one table; `attributes.<key>` is resolved by `attribute` when given. */
export interface Fields {
  named: Record<string, Field>;
  attribute?: (key: string) => Column;
}

const SYMBOL: Record<'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le', string> = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' };

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const PATTERN: Record<'co' | 'sw' | 'ew', (text: string) => string> = {
  co: (text) => `%${escapeLike(text)}%`,
  sw: (text) => `${escapeLike(text)}%`,
  ew: (text) => `%${escapeLike(text)}`,
};

function compareText(column: RawBuilder<unknown>, op: Comparison, value: string, caseExact: boolean): RawBuilder<boolean> {
  const left = caseExact ? column : sql`lower(${column})`;
  if (op === 'co' || op === 'sw' || op === 'ew') {
    const pattern = PATTERN[op](value);
    return caseExact ? sql<boolean>`${left} like ${pattern}` : sql<boolean>`${left} like lower(${pattern})`;
  }
  const right = caseExact ? sql`${value}` : sql`lower(${value})`;
  // An absent value is "not equal" to anything; every other comparison with it is false.
  if (op === 'ne') return sql<boolean>`coalesce(${left} <> ${right}, true)`;
  return sql<boolean>`${left} ${sql.raw(SYMBOL[op])} ${right}`;
}

function compare(column: Column, op: Comparison, value: string | boolean | Date, caseExact: boolean): RawBuilder<boolean> {
  switch (column.kind) {
    case 'boolean':
      if (typeof value !== 'boolean' || (op !== 'eq' && op !== 'ne')) throw new Error(`condition: ${op} ${String(value)} on a boolean`);
      return op === 'eq' ? sql<boolean>`${column.sql} = ${value}` : sql<boolean>`${column.sql} is distinct from ${value}`;
    case 'timestamp':
      if (!(value instanceof Date) || op === 'co' || op === 'sw' || op === 'ew') throw new Error(`condition: ${op} on a timestamp`);
      if (op === 'ne') return sql<boolean>`coalesce(${column.sql} <> ${value}, true)`;
      return sql<boolean>`${column.sql} ${sql.raw(SYMBOL[op])} ${value}`;
    case 'uuid':
      if (typeof value !== 'string') throw new Error(`condition: ${op} on a uuid with a ${typeof value}`);
      // A well-formed uuid compares as one (the primary key or unique index); anything else as the uuid's text.
      if ((op === 'eq' || op === 'ne') && UUID.test(value)) {
        return op === 'eq'
          ? sql<boolean>`${column.sql} = ${value.toLowerCase()}::uuid`
          : sql<boolean>`${column.sql} <> ${value.toLowerCase()}::uuid`;
      }
      return compareText(sql`${column.sql}::text`, op, value.toLowerCase(), true);
    case 'text':
      if (typeof value !== 'string') throw new Error(`condition: ${op} on text with a ${typeof value}`);
      return compareText(column.sql, op, value, caseExact);
  }
}

const present = (column: Column) =>
  column.kind === 'text' ? sql<boolean>`(${column.sql} is not null and ${column.sql} <> '')` : sql<boolean>`${column.sql} is not null`;

function fieldOf(fields: Fields, name: string): Field {
  const named = fields.named[name];
  if (named) return named;
  if (name.startsWith('attributes.') && fields.attribute) return fields.attribute(name.slice('attributes.'.length));
  throw new Error(`condition: unknown field ${name}`);
}

export function toSql(condition: Condition, fields: Fields): RawBuilder<boolean> {
  switch (condition.kind) {
    case 'constant':
      return condition.value ? sql<boolean>`true` : sql<boolean>`false`;
    case 'and':
    case 'or': {
      if (!condition.conditions.length) return condition.kind === 'and' ? sql<boolean>`true` : sql<boolean>`false`;
      const parts = condition.conditions.map((part) => sql`(${toSql(part, fields)})`);
      return sql<boolean>`${sql.join(parts, sql.raw(` ${condition.kind} `))}`;
    }
    case 'not':
      return sql<boolean>`not coalesce((${toSql(condition.condition, fields)}), false)`;
    case 'present': {
      const field = fieldOf(fields, condition.field);
      return field.kind === 'related' ? field.exists(sql<boolean>`true`) : present(field);
    }
    case 'compare': {
      const field = fieldOf(fields, condition.field);
      const caseExact = condition.caseExact ?? false;
      if (field.kind === 'related') return field.exists(compare(field.column, condition.op, condition.value, caseExact));
      return compare(field, condition.op, condition.value, caseExact);
    }
  }
}
