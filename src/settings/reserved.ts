/** Names the service keeps for itself: configured applications may not use them. */

/** The account page's built-in client (src/domain/account-client.ts). */
export const ACCOUNT_SLUG = 'account';
export const ACCOUNT_CLIENT_ID = 'idp-account';
