/** Names the service keeps for itself: configured applications may not use them. */

/** The account page's built-in client (src/domain/account-client.ts). */
export const ACCOUNT_SLUG = 'account';
export const ACCOUNT_CLIENT_ID = 'idp-account';

/** The admin console's built-in client (src/domain/account-client.ts, src/admin/). */
export const ADMIN_SLUG = 'admin';
export const ADMIN_CLIENT_ID = 'idp-admin';
