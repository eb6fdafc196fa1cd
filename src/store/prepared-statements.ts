/**
 * The statements every token request runs, prepared once per PostgreSQL connection: the server then skips
 * parsing and planning them each time (a refresh's write costs it about a third less). Only texts registered
 * here are named; every other statement runs unnamed, as before, since a named one stays in its connection's
 * memory for good. PGlite runs in this process and needs none of it.
 */
const names = new Map<string, string>();
/** Far more than the hot paths have; a bound, so no caller can grow every connection without end. */
const MAX_STATEMENTS = 64;

/** From now on `text` (a compiled statement's SQL) runs as a prepared statement; returns it. */
export function prepareStatement(text: string): string {
  if (!names.has(text) && names.size < MAX_STATEMENTS) names.set(text, `idp_${names.size + 1}`);
  return text;
}

/** `prepareStatement(build())` the first time `what` is asked for (a repository made for each transaction compiles nothing). */
const built = new Set<string>();
export function prepareOnce(what: string, build: () => string): void {
  if (built.has(what)) return;
  built.add(what);
  prepareStatement(build());
}

/** The prepared statement's name for `text`, if it is one. */
export function statementName(text: string): string | undefined {
  return names.get(text);
}
