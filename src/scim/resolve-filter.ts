/**
 * What a parsed filter means for users or for groups: each attribute path becomes a store field (contract.ts,
 * Condition) or, for a value the service always has the same way (an e-mail is the `work`, `primary` one), a
 * constant. The store then answers it in SQL. Attributes without a column or an attribute key (phoneNumbers,
 * addresses) cannot be filtered on: 400 invalidFilter.
 */
import type { Comparison, Condition } from '../store/contract.js';
import type { AttrPath, Filter, Literal } from './filter.js';
import { scimError } from './errors.js';
import { CORE_GROUP, CORE_USER, ENTERPRISE_USER } from './schemas.js';
import { USER_ATTRIBUTE_KEYS } from './user-resource.js';

type Target =
  | { kind: 'text'; field: string; caseExact?: boolean }
  | { kind: 'uuid' | 'boolean' | 'timestamp'; field: string }
  /** A value every resource has alike. */
  | { kind: 'constant'; value: string | boolean }
  /** Computed from other targets. */
  | { kind: 'custom'; resolve: (op: Comparison | 'pr', value: Literal) => Condition };

const text = (field: string, caseExact = false): Target => ({ kind: 'text', field, caseExact });

/** name.formatted is the attribute kept for it, else the user's name (what GET shows). */
const formattedName = (op: Comparison | 'pr', value: Literal): Condition => {
  if (op === 'pr') return { kind: 'constant', value: true };
  const kept: Condition = { kind: 'present', field: 'attributes.formatted_name' };
  return {
    kind: 'or',
    conditions: [
      { kind: 'and', conditions: [kept, compare(text('attributes.formatted_name'), op, value, 'name.formatted')] },
      { kind: 'and', conditions: [{ kind: 'not', condition: kept }, compare(text('name'), op, value, 'name.formatted')] },
    ],
  };
};

const userTargets: Record<string, Target> = {
  id: { kind: 'uuid', field: 'uuid' },
  externalid: text('external_id', true),
  username: text('username'),
  displayname: text('name'),
  'name.formatted': { kind: 'custom', resolve: formattedName },
  emails: text('email'),
  'emails.value': text('email'),
  'emails.type': { kind: 'constant', value: 'work' },
  'emails.primary': { kind: 'constant', value: true },
  active: { kind: 'boolean', field: 'is_active' },
  'meta.created': { kind: 'timestamp', field: 'created_at' },
  'meta.lastmodified': { kind: 'timestamp', field: 'updated_at' },
  'meta.resourcetype': { kind: 'constant', value: 'User' },
  groups: { kind: 'uuid', field: 'group.uuid' },
  'groups.value': { kind: 'uuid', field: 'group.uuid' },
  'groups.display': text('group.name'),
  'groups.type': { kind: 'constant', value: 'direct' },
};
// Every simple attribute kept under an attribute key is filterable as that key's text.
for (const [path, key] of Object.entries(USER_ATTRIBUTE_KEYS)) userTargets[path.toLowerCase()] ??= text(`attributes.${key}`);

const groupTargets: Record<string, Target> = {
  id: { kind: 'uuid', field: 'uuid' },
  externalid: text('external_id', true),
  displayname: text('name'),
  members: { kind: 'uuid', field: 'member.uuid' },
  'members.value': { kind: 'uuid', field: 'member.uuid' },
  'members.display': text('member.name'),
  'members.type': { kind: 'constant', value: 'User' },
  'meta.created': { kind: 'timestamp', field: 'created_at' },
  'meta.lastmodified': { kind: 'timestamp', field: 'updated_at' },
  'meta.resourcetype': { kind: 'constant', value: 'Group' },
};

const invalid = (detail: string) => scimError(400, 'invalidFilter', detail);

function constantMatches(constant: string | boolean, op: Comparison, value: Literal): boolean {
  if (typeof constant === 'boolean') {
    const given = typeof value === 'string' ? value.toLowerCase() === 'true' : value;
    if (op === 'eq') return given === constant;
    if (op === 'ne') return given !== constant;
    throw invalid(`${op} does not apply to a boolean.`);
  }
  if (typeof value !== 'string') return op === 'ne';
  const [a, b] = [constant.toLowerCase(), value.toLowerCase()];
  const results: Record<Comparison, boolean> = {
    eq: a === b,
    ne: a !== b,
    co: a.includes(b),
    sw: a.startsWith(b),
    ew: a.endsWith(b),
    gt: a > b,
    ge: a >= b,
    lt: a < b,
    le: a <= b,
  };
  return results[op];
}

function compare(target: Target, op: Comparison, value: Literal, name: string): Condition {
  if (target.kind === 'constant') return { kind: 'constant', value: constantMatches(target.value, op, value) };
  if (target.kind === 'custom') return target.resolve(op, value);
  // `eq null` asks for an absent value (RFC 7644 §3.4.2.2 has `pr` for presence).
  if (value === null) {
    if (op !== 'eq' && op !== 'ne') throw invalid(`${name} ${op} null compares nothing.`);
    const present: Condition = { kind: 'present', field: target.field };
    return op === 'ne' ? present : { kind: 'not', condition: present };
  }
  switch (target.kind) {
    case 'boolean': {
      const given = typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : value;
      if (typeof given !== 'boolean') throw invalid(`${name} is a boolean: compare it with true or false.`);
      if (op !== 'eq' && op !== 'ne') throw invalid(`${name} is a boolean: only eq and ne apply.`);
      return { kind: 'compare', field: target.field, op, value: given };
    }
    case 'timestamp': {
      const date = typeof value === 'string' ? new Date(value) : undefined;
      if (!date || Number.isNaN(date.getTime()))
        throw invalid(`${name} is a dateTime: compare it with a "string" such as "2024-01-31T12:00:00Z".`);
      if (op === 'co' || op === 'sw' || op === 'ew') throw invalid(`${name} is a dateTime: ${op} does not apply.`);
      return { kind: 'compare', field: target.field, op, value: date };
    }
    default:
      if (typeof value !== 'string') throw invalid(`${name} is a string: compare it with a "string".`);
      return { kind: 'compare', field: target.field, op, value, caseExact: target.kind === 'text' ? target.caseExact : undefined };
  }
}

type Targets = Record<string, Target>;

function pathName(path: AttrPath, core: string, prefix?: string): string {
  const local = `${path.attribute}${path.subAttribute ? `.${path.subAttribute}` : ''}`;
  if (prefix) return `${prefix}.${local}`;
  if (!path.schema || path.schema.toLowerCase() === core.toLowerCase()) return local;
  if (core === CORE_USER && path.schema.toLowerCase() === ENTERPRISE_USER.toLowerCase()) return `${ENTERPRISE_USER}:${local}`;
  throw invalid(`The schema ${path.schema} is not one of this resource's.`);
}

function targetOf(targets: Targets, name: string): Target {
  const target = targets[name.toLowerCase()];
  if (!target) throw invalid(`The attribute ${name} cannot be filtered on.`);
  return target;
}

function resolve(filter: Filter, targets: Targets, core: string, prefix?: string): Condition {
  switch (filter.op) {
    case 'and':
    case 'or':
      return { kind: filter.op, conditions: [resolve(filter.left, targets, core, prefix), resolve(filter.right, targets, core, prefix)] };
    case 'not':
      return { kind: 'not', condition: resolve(filter.filter, targets, core, prefix) };
    case 'valuePath': {
      if (prefix || filter.path.subAttribute) throw invalid('A value filter applies to a multi-valued attribute, not inside another.');
      return resolve(filter.filter, targets, core, pathName(filter.path, core));
    }
    case 'pr': {
      const name = pathName(filter.path, core, prefix);
      const target = targetOf(targets, name);
      if (target.kind === 'constant') return { kind: 'constant', value: true };
      if (target.kind === 'custom') return target.resolve('pr', null);
      return { kind: 'present', field: target.field };
    }
    default: {
      const name = pathName(filter.path, core, prefix);
      return compare(targetOf(targets, name), filter.op, filter.value, name);
    }
  }
}

export const userCondition = (filter: Filter): Condition => resolve(filter, userTargets, CORE_USER);
export const groupCondition = (filter: Filter): Condition => resolve(filter, groupTargets, CORE_GROUP);
