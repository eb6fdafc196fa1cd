/**
 * Input the service refuses before any rule looks at it: text PostgreSQL cannot hold (NUL characters, lone
 * surrogates) and JSON nested deeper than any real attribute needs. Each web layer turns the message into its
 * own 400: the API's field map, a readable page, an OAuth invalid_request.
 */
import { isStorableText } from '../store/storable-text.js';

export const MAX_JSON_DEPTH = 32;

export const NUL_NOT_ALLOWED = 'Null characters are not allowed.';

/** The first problem of a string, or of any key or string inside an object or array; undefined when none. */
export function inputProblem(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') {
    if (isStorableText(value)) return undefined;
    return value.includes('\u0000') ? NUL_NOT_ALLOWED : 'Not a valid string (it holds an unpaired surrogate).';
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_JSON_DEPTH) return `Nesting is limited to ${MAX_JSON_DEPTH} levels.`;
  const entries = Array.isArray(value) ? value.map((item) => ['', item] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    const problem = inputProblem(key) ?? inputProblem(item, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}
