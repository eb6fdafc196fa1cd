/** findAccount for the engine: users by uuid (the subject), with the claims of spec §2.4. */
import type { Account, FindAccount } from 'oidc-provider';
import type { Store, UserRow } from '../store/contract.js';
import type { ApplicationSettings } from '../settings/schema.js';
import { userAllowedIn } from '../domain/applications.js';
import { forEngine } from './engine-unavailable.js';

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

function isHttpsUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/** Every claim we know about a user; the engine keeps those the granted scopes ask for. */
export function userClaims(user: UserRow, baseUrl: string): Record<string, unknown> {
  const [first, ...rest] = user.name.trim().split(/\s+/);
  const attributes = user.attributes ?? {};
  return {
    sub: user.uuid,
    name: user.name,
    given_name: text(attributes.first_name) ?? first ?? '',
    family_name: text(attributes.last_name) ?? rest.join(' '),
    email: user.email,
    email_verified: user.email_verified,
    picture: isHttpsUrl(attributes.avatar) ? attributes.avatar : `${baseUrl}/avatars/${user.uuid}.svg`,
  };
}

/**
 * Inactive users have no account: their sessions and tokens stop working (userinfo 401, refresh invalid_grant).
 * Nor does a user outside the application's access group when a code or token is used (code exchange, refresh,
 * UserInfo): the spec §5 rule holds on every grant, not only at sign-in. Without a token (the authorization
 * request) the access group is checked by loadExistingGrant, which answers access_denied.
 */
export function findAccount(store: Store, app: ApplicationSettings, baseUrl: string): FindAccount {
  return (_ctx, sub, token): Promise<Account | undefined> =>
    forEngine(async () => {
      const { user, allowed } = await userAllowedIn(store, app, sub);
      if (!user?.is_active || (token && !allowed)) return undefined;
      return { accountId: user.uuid, claims: async () => ({ ...userClaims(user, baseUrl), sub: user.uuid }) };
    });
}
