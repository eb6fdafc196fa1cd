/**
 * The service's own pages behind a built-in client's sign-in: the account page (/account) and the admin console
 * (/admin). Each signs people in like any application (src/account/sign-in.ts, callback.ts) and keeps its own
 * cookie, scoped to its path; what differs between them is named here.
 */
import { ACCOUNT_CLIENT_ID, ADMIN_CLIENT_ID } from '../settings/reserved.js';

export interface Portal {
  /** Its path, without the trailing slash: '/account'. */
  path: string;
  clientId: string;
  /** Its session cookie's name; the sign-in's flow cookie adds _flow. */
  cookie: string;
  /** Page titles and the headings of its errors: a catalogue key where its pages are translated. */
  title: string;
  /** Whether its pages are in the reader's language (the account page); the admin console stays in English. */
  translated: boolean;
}

export const ACCOUNT_PORTAL: Portal = {
  path: '/account',
  clientId: ACCOUNT_CLIENT_ID,
  cookie: 'idp_account',
  title: 'account.title',
  translated: true,
};
export const ADMIN_PORTAL: Portal = {
  path: '/admin',
  clientId: ADMIN_CLIENT_ID,
  cookie: 'idp_admin',
  title: 'Admin console',
  translated: false,
};
