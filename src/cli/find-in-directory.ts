/**
 * How the `users` and `groups` commands name what they act on: a user by pk, uuid or e-mail address, a group by uuid
 * or name (what an operator has at hand). Reads only; every change goes through the domain functions.
 */
import { NotFoundError } from '../errors.js';
import { listUsers } from '../domain/users.js';
import type { Store } from '../store/contract.js';
import { UUID } from '../uuid.js';

/** The user's pk (the API's key) for a pk, a uuid or an e-mail address. */
export async function userPkOf(store: Store, given: string): Promise<number> {
  if (/^\d{1,15}$/.test(given)) return Number(given); // the domain answers "user not found" for an unknown one
  if (UUID.test(given)) {
    const row = await store.users.findByUuid(given.toLowerCase());
    if (!row) throw new NotFoundError(`user ${given}`);
    return row.id;
  }
  if (given.includes('@')) {
    const [user] = (await listUsers(store, { email: given }, { offset: 0, limit: 1 })).results;
    if (!user) throw new NotFoundError(`user ${given}`);
    return user.pk;
  }
  throw new Error(`${JSON.stringify(given)} names no user: give its pk, uuid or e-mail address`);
}

/** The group's uuid (the API's key) for a uuid or a name (names are unique, case-insensitively). */
export async function groupPkOf(store: Store, given: string): Promise<string> {
  if (UUID.test(given)) return given.toLowerCase(); // the domain answers "group not found" for an unknown one
  const row = await store.groups.findByName(given);
  if (!row) throw new NotFoundError(`group ${JSON.stringify(given)}`);
  return row.uuid;
}
