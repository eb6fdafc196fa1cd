/**
 * The statements every token request runs, prepared once per PostgreSQL connection: the server then skips
 * parsing and planning them each time (a refresh's write costs it about a third less). Only texts registered
 * here are named; every other statement runs unnamed, as before, since a named one stays in its connection's
 * memory for good. PGlite runs in this process and needs none of it.
 */
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

const names = new Map<string, string>();
/** Far more than the hot paths have; a bound, so no caller can grow every connection without end. */
const MAX_STATEMENTS = 64;

/** From now on `text` (a compiled statement's SQL) runs as a prepared statement; returns it. */
export function prepareStatement(text: string): string {
  if (!names.has(text) && names.size < MAX_STATEMENTS) names.set(text, `idp_${names.size + 1}`);
  return text;
}

/** The prepared statement's name for `text`, if it is one. */
export function statementName(text: string): string | undefined {
  return names.get(text);
}

/**
 * A lookup built once with Kysely and then run as a prepared statement with each call's values: the query
 * builder costs more per call than the hot lookups themselves. `build` receives a placeholder for each name;
 * every parameter of the compiled query must be one of them.
 */
export function preparedLookup<V extends Record<string, unknown>, R>(
  build: (db: Kysely<any>, values: V) => Compilable<R>,
  keys: Array<keyof V & string>,
) {
  let compiled: { text: string; order: Array<keyof V> } | undefined;
  return async (db: Kysely<any>, values: V): Promise<R | undefined> => {
    if (!compiled) {
      const placeholders = Object.fromEntries(keys.map((key) => [key, { placeholder: key }])) as unknown as V;
      const query = build(db, placeholders).compile();
      const order = query.parameters.map((parameter) => keys.find((key) => placeholders[key] === parameter));
      if (order.some((key) => key === undefined))
        throw new Error(`preparedLookup: a parameter of ${query.sql} is not one of ${keys.join(', ')}`);
      compiled = { text: prepareStatement(query.sql), order: order as Array<keyof V> };
    }
    const { rows } = await db.executeQuery<R>(
      CompiledQuery.raw(
        compiled.text,
        compiled.order.map((key) => values[key]),
      ),
    );
    return rows[0];
  };
}
