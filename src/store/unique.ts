/** Maps a database unique-constraint error to the API field it protects; case-insensitive match helpers. */
import { sql } from 'kysely';
import { UniqueViolation } from './contract.js';

const fieldOfConstraint: Record<string, string> = {
  users_username_key: 'username',
  users_email_key: 'email',
  groups_name_key: 'name',
  source_links_pkey: 'subject',
  source_links_user_source_key: 'source',
};

export async function mapUnique<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    const field = constraint && fieldOfConstraint[constraint];
    if (code === '23505' && field) throw new UniqueViolation(field);
    throw error;
  }
}

/**
 * A case-insensitive "contains" pattern: LIKE wildcards escaped so the term matches literally, lowered by the
 * database (JavaScript's toLowerCase differs from PostgreSQL's lower() for letters such as İ and a final Σ).
 */
export const likeContains = (term: string) => sql<string>`lower(${`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`})`;

/** The database's lower() of a value, to compare with a lower(column) index. */
export const lowered = (value: string) => sql<string>`lower(${value})`;
