/**
 * PostgreSQL text and jsonb cannot hold NUL characters or lone UTF-16 surrogates (a surrogate half without
 * its pair): a write fails and a lookup errors. Such text can never be stored, so it can never be found.
 */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}
