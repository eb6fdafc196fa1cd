/**
 * SCIM filters and PATCH paths (RFC 7644 §3.4.2.2, §3.5.2) parsed into a tree: comparisons, `pr`, `and` (binding
 * tighter than `or`), `not (…)`, parentheses and value paths (`emails[type eq "work"]`). Keywords and attribute
 * names are case-insensitive; strings are JSON strings. What the tree means for users or groups is decided in
 * resolve-filter.ts; here it is syntax only.
 */
import type { Comparison } from '../store/contract.js';
import { ScimError } from '../errors.js';

export interface AttrPath {
  /** The schema URN when the path names one (`urn:…:enterprise:2.0:User:department`). */
  schema?: string;
  attribute: string;
  subAttribute?: string;
}

export type Literal = string | number | boolean | null;

export type Filter =
  | { op: 'and' | 'or'; left: Filter; right: Filter }
  | { op: 'not'; filter: Filter }
  | { op: 'pr'; path: AttrPath }
  | { op: Comparison; path: AttrPath; value: Literal }
  | { op: 'valuePath'; path: AttrPath; filter: Filter };

/** A PATCH path: an attribute, optionally narrowed by a value filter, optionally down to a sub-attribute. */
export interface PatchPath {
  path: AttrPath;
  filter?: Filter;
}

export const COMPARISONS: readonly Comparison[] = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'];
const MAX_LENGTH = 4096;
const MAX_DEPTH = 32;

type Token = { kind: '(' | ')' | '[' | ']' } | { kind: 'string'; value: string } | { kind: 'word'; value: string };

function tokenize(text: string, fail: (why: string) => never): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s+|([()[\]])|("(?:[^"\\]|\\.)*")|([^\s()[\]"]+)|(.)/gy;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const [, bracket, string, word, stray] = match;
    if (bracket) tokens.push({ kind: bracket as '(' });
    else if (string) {
      try {
        tokens.push({ kind: 'string', value: JSON.parse(string) as string });
      } catch {
        fail(`the string ${string} is not a valid JSON string`);
      }
    } else if (word) tokens.push({ kind: 'word', value: word });
    else if (stray) fail(stray === '"' ? 'a string is not closed' : `unexpected "${stray}"`);
  }
  return tokens;
}

/** `urn:…:Schema:attr.sub`, `attr.sub` or `attr`; undefined when it is not an attribute path. */
export function parseAttrPath(word: string): AttrPath | undefined {
  let schema: string | undefined;
  let rest = word;
  if (/^urn:/i.test(word)) {
    const colon = word.lastIndexOf(':');
    schema = word.slice(0, colon);
    rest = word.slice(colon + 1);
  }
  const match = /^([A-Za-z$][\w$-]*)(?:\.([A-Za-z$][\w$-]*))?$/.exec(rest);
  if (!match) return undefined;
  return { ...(schema ? { schema } : {}), attribute: match[1]!, ...(match[2] ? { subAttribute: match[2] } : {}) };
}

class Parser {
  private at = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly fail: (why: string) => never,
  ) {}

  get done() {
    return this.at >= this.tokens.length;
  }

  remaining(): Token[] {
    return this.tokens.slice(this.at);
  }

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private next(what: string): Token {
    const token = this.tokens[this.at++];
    if (!token) this.fail(`${what} expected at the end`);
    return token;
  }

  private isWord(word: string): boolean {
    const token = this.peek();
    return token?.kind === 'word' && token.value.toLowerCase() === word;
  }

  expect(kind: '(' | ')' | '[' | ']') {
    const token = this.next(`"${kind}"`);
    if (token.kind !== kind) this.fail(`"${kind}" expected, not ${describe(token)}`);
  }

  or(depth: number): Filter {
    if (depth > MAX_DEPTH) this.fail(`nesting is limited to ${MAX_DEPTH} levels`);
    let left = this.and(depth);
    while (this.isWord('or')) {
      this.at++;
      left = { op: 'or', left, right: this.and(depth) };
    }
    return left;
  }

  private and(depth: number): Filter {
    let left = this.unary(depth);
    while (this.isWord('and')) {
      this.at++;
      left = { op: 'and', left, right: this.unary(depth) };
    }
    return left;
  }

  private unary(depth: number): Filter {
    if (this.isWord('not')) {
      this.at++;
      return { op: 'not', filter: this.parenthesised(depth) };
    }
    if (this.peek()?.kind === '(') return this.parenthesised(depth);
    return this.attributeExpression(depth);
  }

  private parenthesised(depth: number): Filter {
    this.expect('(');
    const inner = this.or(depth + 1);
    this.expect(')');
    return inner;
  }

  attrPath(): AttrPath {
    const token = this.next('an attribute');
    const path = token.kind === 'word' ? parseAttrPath(token.value) : undefined;
    if (!path) this.fail(`an attribute expected, not ${describe(token)}`);
    return path;
  }

  private attributeExpression(depth: number): Filter {
    const path = this.attrPath();
    if (this.peek()?.kind === '[') {
      this.at++;
      const filter = this.or(depth + 1);
      this.expect(']');
      return { op: 'valuePath', path, filter };
    }
    const operator = this.next('an operator');
    const op = operator.kind === 'word' ? operator.value.toLowerCase() : '';
    if (op === 'pr') return { op: 'pr', path };
    if (!(COMPARISONS as readonly string[]).includes(op))
      this.fail(`an operator (pr, ${COMPARISONS.join(', ')}) expected, not ${describe(operator)}`);
    return { op: op as Comparison, path, value: this.literal() };
  }

  private literal(): Literal {
    const token = this.next('a value');
    if (token.kind === 'string') return token.value;
    if (token.kind === 'word') {
      const word = token.value.toLowerCase();
      if (word === 'true') return true;
      if (word === 'false') return false;
      if (word === 'null') return null;
      if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(token.value)) return Number(token.value);
    }
    this.fail(`a value (a "string", a number, true, false or null) expected, not ${describe(token)}`);
  }
}

const describe = (token: Token) =>
  token.kind === 'word' ? `"${token.value}"` : token.kind === 'string' ? JSON.stringify(token.value) : `"${token.kind}"`;

type Fail = (why: string) => never;

function failWith(scimType: 'invalidFilter' | 'invalidPath', text: string): Fail {
  return (why) => {
    throw new ScimError(
      400,
      scimType,
      `The ${scimType === 'invalidFilter' ? 'filter' : 'path'} ${JSON.stringify(text)} is not valid: ${why}.`,
    );
  };
}

/** Parses a `filter` query parameter (or a SearchRequest's); a syntax error is a 400 invalidFilter. */
export function parseFilter(text: string): Filter {
  const fail: Fail = failWith('invalidFilter', text.slice(0, 200));
  if (text.length > MAX_LENGTH) fail(`it is longer than ${MAX_LENGTH} characters`);
  const parser = new Parser(tokenize(text, fail), fail);
  if (parser.done) fail('it is empty');
  const filter = parser.or(0);
  if (!parser.done) fail('it continues after a complete expression');
  return filter;
}

/** Parses a PATCH operation's `path`: `attr`, `attr.sub`, `urn:…:attr`, `attr[filter]`, `attr[filter].sub`. */
export function parsePatchPath(text: string): PatchPath {
  const fail: Fail = failWith('invalidPath', text.slice(0, 200));
  if (text.length > MAX_LENGTH) fail(`it is longer than ${MAX_LENGTH} characters`);
  const tokens = tokenize(text, fail);
  const parser = new Parser(tokens, fail);
  if (parser.done) fail('it is empty');
  const path = parser.attrPath();
  if (parser.done) return { path };
  if (path.subAttribute) fail('a value filter applies to an attribute, not to a sub-attribute');
  parser.expect('[');
  const filter = parser.or(1);
  parser.expect(']');
  if (parser.done) return { path, filter };
  // After the filter, `.sub` arrives as one word.
  const rest = parser.remaining();
  const last = rest[0];
  const sub = rest.length === 1 && last?.kind === 'word' ? /^\.([A-Za-z$][\w$-]*)$/.exec(last.value) : null;
  if (!sub) fail('only ".subAttribute" may follow the value filter');
  return { path: { ...path, subAttribute: sub[1]! }, filter };
}
