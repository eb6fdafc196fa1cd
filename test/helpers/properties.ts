/**
 * Shared pieces of the property-based suite (test/properties/): hostile text and JSON arbitraries, raw query
 * strings and form bodies built byte by byte (so repeated keys, %00 and invalid UTF-8 reach the server as
 * sent), and the checks of the documented answer shapes that every property applies.
 */
import fc from 'fast-check';

/** Keys that name something on Object.prototype: they must stay plain names everywhere. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'isPrototypeOf'] as const;

/** Text that has broken parsers, databases and templates before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'a\udfffb',
  '\udc00\ud800',
  '\uffff',
  '\ufeff',
  '\u202e',
  '\u00a0',
  'İ',
  'ı',
  'ΑΣ',
  'ς',
  'ß',
  'ẞ',
  'K',
  'ǅ',
  'ﬁ',
  '😀',
  'e\u0301',
  '%00',
  '%C3%28',
  '%',
  "' OR 1=1 --",
  '%_\\',
  '"; drop table users; --',
  '<script>alert(1)</script>',
  '&amp;"\'<>',
  '${7*7}',
  '{{7*7}}',
  '<%= 7*7 %>',
  '../../etc/passwd',
  'null',
  'true',
  'false',
  '[]',
  '{}',
  '1e309',
  '-0',
  '0x10',
  'NaN',
  'Infinity',
  '9'.repeat(30),
  '-1',
  '0',
  '2147483648',
  '1.5',
  ...PROTOTYPE_KEYS,
];

/**
 * Any text: binary (lone surrogates, NUL, controls), full Unicode, ASCII, the nasty list, and now and then a huge
 * run of one character (up to `hugeMax` long; 0: never).
 */
export function anyText(maxLength = 40, hugeMax = 70_000): fc.Arbitrary<string> {
  const huge = fc
    .tuple(fc.constantFrom('a', 'é', '\u0000', '😀', ' '), fc.integer({ min: 200, max: Math.max(200, hugeMax) }))
    .map(([c, n]) => c.repeat(n));
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    { weight: 2, arbitrary: fc.string({ maxLength }) },
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    // Ordinary text with one character PostgreSQL cannot store (NUL, a lone surrogate) spliced in.
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.string({ maxLength }), fc.nat(), fc.constantFrom('\u0000', '\ud800', '\udfff'))
        .map(([value, at, bad]) => value.slice(0, at % (value.length + 1)) + bad + value.slice(at % (value.length + 1))),
    },
    ...(hugeMax > 0 ? [{ weight: 1, arbitrary: huge }] : []),
  );
}

/** UUIDs in every spelling a parser might accept or choke on. */
export function uuidLike(known: string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    fc.uuid(),
    fc.uuid().map((u) => u.toUpperCase()),
    fc.uuid().map((u) => `urn:uuid:${u}`),
    fc.uuid().map((u) => `{${u}}`),
    fc.uuid().map((u) => u.replace(/-/g, '')),
    fc.uuid().map((u) => ` ${u}`),
    fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'not-a-uuid'),
    ...(known.length ? [fc.constantFrom(...known), fc.constantFrom(...known).map((u) => u.toUpperCase())] : []),
  );
}

/** JSON values with hostile strings (keys and values), bounded depth. */
export const anyJsonValue = (maxDepth = 3) => fc.jsonValue({ stringUnit: 'binary', maxDepth });

/** A JSON value of a wrong type for a field, or a hostile string. */
export function anyFieldValue(known: string[] = []): fc.Arbitrary<unknown> {
  return fc.oneof(
    anyText(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(anyText(12), fc.integer(), uuidLike(known)), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom(...PROTOTYPE_KEYS)), anyJsonValue(2), {
      maxKeys: 4,
    }),
    uuidLike(known),
  );
}

/** JSON object text from key/value pairs, written by hand: keys may repeat and may be `__proto__`. */
export const objectText = (entries: Array<[string, unknown]>) =>
  `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`).join(',')}}`;

/** JSON nested `depth` levels deep, as objects or arrays. */
export const deepJson = fc
  .tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? '['.repeat(depth) + '1' + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)));

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate becomes U+FFFD's bytes, as a browser sends it). */
export const pct = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');

/** Raw pieces of a query or form value that no encoder would produce: NUL, invalid UTF-8, stray % and separators. */
export const RAW_PIECES = [
  '%00',
  '%C3%28',
  '%FF',
  '%ED%A0%80',
  '%E2%82',
  '%',
  '%G1',
  '%%',
  '+',
  '%2B',
  '&',
  '=',
  ';',
  '%26',
  '%3D',
  '%0D%0A',
];

/** One value as it goes on the wire: encoded text, or encoded text with raw pieces spliced in. */
export function wireValue(values: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: values.map(pct) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.oneof(values.map(pct), fc.constantFrom(...RAW_PIECES)), { minLength: 1, maxLength: 4 })
        .map((parts) => parts.join('')),
    },
  );
}

/** A query string or form body: random pairs, keys may repeat, some without `=`. */
export function wirePairs(keys: fc.Arbitrary<string>, values: fc.Arbitrary<string>, maxLength = 8): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(wireValue(keys), wireValue(values), fc.nat(19)), { maxLength })
    .map((pairs) => pairs.map(([key, value, odd]) => (odd === 0 ? key : `${key}=${value}`)).join('&'));
}

/** Pairs encoded as a browser would (each key once or repeated on purpose by the caller). */
export const encodePairs = (pairs: Array<[string, string]>) => pairs.map(([key, value]) => `${pct(key)}=${pct(value)}`).join('&');

/** What fetch accepts as a header value (a ByteString without NUL, CR or LF), trimmed as fetch trims it. */
export const isHeaderValue = (value: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value);

/** The two error bodies of the provisioning API: `{"detail": string}` or a non-empty `{field: [string, …]}`. */
export function apiErrorProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `not a JSON object: ${JSON.stringify(body)?.slice(0, 200)}`;
  const entries = Object.entries(body);
  if (entries.length === 1 && entries[0]![0] === 'detail' && typeof entries[0]![1] === 'string') return undefined;
  if (!entries.length) return 'an empty object';
  for (const [field, messages] of entries) {
    if (!Array.isArray(messages) || !messages.length || !messages.every((m) => typeof m === 'string' && m.length > 0)) {
      return `field ${JSON.stringify(field)} is not a non-empty array of strings: ${JSON.stringify(messages)?.slice(0, 200)}`;
    }
  }
  return undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const isPlainObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A user as the API documents it, or what is wrong with it. */
export function userProblem(user: unknown): string | undefined {
  if (!isPlainObject(user)) return 'not an object';
  const u = user as Record<string, unknown>;
  const keys = Object.keys(u).sort().join(',');
  if (keys !== 'attributes,email,email_verified,groups,is_active,last_login,name,pk,username,uuid') return `keys are ${keys}`;
  if (!Number.isInteger(u.pk) || (u.pk as number) < 1) return 'pk';
  if (typeof u.uuid !== 'string' || !UUID.test(u.uuid)) return 'uuid';
  for (const field of ['username', 'email', 'name']) if (typeof u[field] !== 'string' || !(u[field] as string).length) return field;
  if (typeof u.is_active !== 'boolean') return 'is_active';
  if (typeof u.email_verified !== 'boolean') return 'email_verified';
  if (u.last_login !== null && (typeof u.last_login !== 'string' || !ISO_UTC.test(u.last_login))) return 'last_login';
  if (!isPlainObject(u.attributes)) return 'attributes';
  if (!Array.isArray(u.groups) || !u.groups.every((g) => typeof g === 'string' && UUID.test(g))) return 'groups';
  return undefined;
}

/** A group as the API documents it, or what is wrong with it. */
export function groupProblem(group: unknown): string | undefined {
  if (!isPlainObject(group)) return 'not an object';
  const g = group as Record<string, unknown>;
  const keys = Object.keys(g).sort().join(',');
  if (keys !== 'attributes,name,pk,users,users_count') return `keys are ${keys}`;
  if (typeof g.pk !== 'string' || !UUID.test(g.pk)) return 'pk';
  if (typeof g.name !== 'string' || !g.name.length) return 'name';
  if (!Array.isArray(g.users) || !g.users.every((pk) => Number.isInteger(pk))) return 'users';
  if (g.users_count !== g.users.length) return 'users_count';
  if (!isPlainObject(g.attributes)) return 'attributes';
  return undefined;
}

/** A list answer: pagination that adds up, and results of the given shape. */
export function listProblem(body: unknown, baseUrl: string, item: (value: unknown) => string | undefined): string | undefined {
  if (!isPlainObject(body)) return 'not an object';
  const { pagination: p, results } = body as { pagination: Record<string, unknown>; results: unknown };
  if (
    Object.keys(body as object)
      .sort()
      .join(',') !== 'pagination,results'
  )
    return 'keys';
  if (!isPlainObject(p) || !Array.isArray(results)) return 'pagination or results';
  const ints = ['count', 'current', 'total_pages', 'start_index', 'end_index'];
  if (!ints.every((key) => Number.isInteger(p[key]) && (p[key] as number) >= 0)) return `pagination numbers ${JSON.stringify(p)}`;
  const { count, current, total_pages: pages, start_index: start, end_index: end } = p as Record<string, number>;
  if (current < 1 || pages < 1 || current > pages) return `current ${current} of ${pages}`;
  if (count === 0 ? results.length !== 0 || start !== 0 || end !== 0 : end - start + 1 !== results.length)
    return `indexes ${start}–${end} for ${results.length} results`;
  for (const [key, present] of [
    ['next', current < pages],
    ['previous', current > 1],
  ] as const) {
    const link = p[key];
    if (present ? typeof link !== 'string' || !link.startsWith(`${baseUrl}/api/v3/`) : link !== null)
      return `${key}: ${JSON.stringify(link)}`;
  }
  for (const result of results) {
    const problem = item(result);
    if (problem) return `a result: ${problem}`;
  }
  return undefined;
}

/**
 * The OAuth error codes of RFC 6749 §4.1.2.1/§5.2, RFC 6750 §3.1, RFC 8707 §2 (invalid_target), OIDC Core §3.1.2.6,
 * and oidc-provider's unsupported_response_mode (JARM's name for an unknown response_mode).
 */
export const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'unsupported_response_type',
  'server_error',
  'temporarily_unavailable',
  'invalid_token',
  'insufficient_scope',
  'interaction_required',
  'login_required',
  'account_selection_required',
  'consent_required',
  'invalid_request_uri',
  'invalid_request_object',
  'request_not_supported',
  'request_uri_not_supported',
  'registration_not_supported',
  'invalid_target',
  'unsupported_response_mode',
]);

/** Codes a JSON endpoint (token, userinfo) may answer; server_error is a 500 and never acceptable. */
export const JSON_ENDPOINT_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_token',
  'insufficient_scope',
  'temporarily_unavailable',
  'invalid_target',
]);

/** A protocol JSON error body, or what is wrong with it. */
export function oauthErrorProblem(body: unknown, allowed: Set<string>): string | undefined {
  if (!isPlainObject(body)) return `not a JSON object: ${String(body).slice(0, 200)}`;
  const b = body as Record<string, unknown>;
  if (typeof b.error !== 'string' || !allowed.has(b.error)) return `error ${JSON.stringify(b.error)}`;
  if (b.error_description !== undefined && typeof b.error_description !== 'string') return 'error_description';
  const extra = Object.keys(b).filter((key) => !['error', 'error_description', 'error_uri', 'state', 'scope'].includes(key));
  return extra.length ? `unexpected keys ${extra.join(',')}` : undefined;
}

/** A page of the service: HTML in the layout. */
export function pageProblem(status: number, contentType: string | null, text: string): string | undefined {
  if (!contentType?.startsWith('text/html')) return `content-type ${contentType}`;
  if (!text.includes('<main class="card">')) return `no layout: ${text.slice(0, 200)}`;
  if (status >= 400 && !text.includes('role="alert"')) return `a ${status} page without an alert`;
  return undefined;
}
