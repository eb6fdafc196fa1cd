/** What the account page's handlers share, built once by its router. */
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/contract.js';
import type { RateLimits } from '../domain/rate-limits.js';
import type { SendMail } from '../domain/mail.js';
import type { Enqueue } from '../domain/deliveries.js';
import type { RelyingParty } from '../domain/passkeys.js';
import type { AccountCookies } from './account-cookie.js';
import type { Portal } from './portal.js';

export interface AccountDeps {
  /** Which of the service's own pages these are (the account page, or the admin console). */
  portal: Portal;
  store: Store;
  settings: Settings;
  limits: RateLimits;
  sendMail: SendMail;
  /** The deliveries' producer (the console's redeliver); absent when the process runs no queue. */
  enqueue?: Enqueue;
  logger?: Logger;
  rp: RelyingParty;
  cookies: AccountCookies;
  /** The account client's provider right now (a key rotation swaps providers). */
  provider(): Provider;
  /** Names of the applications by client_id, for the "signed in to" list. */
  appName(clientId: string): string | undefined;
  /** Short-lived signed values (the sign-in's state and PKCE verifier; a step waiting for a fresh sign-in). */
  seal(purpose: string, value: unknown, seconds: number): string;
  unseal<T>(purpose: string, token: unknown): T | undefined;
}
