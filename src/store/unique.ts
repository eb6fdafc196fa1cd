/** Maps a database unique-constraint error to the API field it protects. */
import { UniqueViolation } from './contract.js';

const fieldOfConstraint: Record<string, string> = {
  users_username_key: 'username',
  users_email_key: 'email',
  groups_name_key: 'name',
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

/** Escapes LIKE wildcards so a search term matches literally. */
export const likeContains = (term: string) => `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
