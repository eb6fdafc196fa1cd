/**
 * The rate limits as the domain and the web rooms see them (a port): which counters exist, what a refusal says,
 * and the keys of an account. Their implementation on Redis, with per-process counters while Redis is away,
 * is src/infra/rate-limiters.ts; the composition root builds it.
 *
 * Typed secrets (passwords, mailed codes, second factors) are counted before they are checked, so parallel guesses
 * cannot slip past a limit; a success clears its account's counters. Other limits are checked first and count
 * only failures.
 *
 * Keys are compared exactly as given. An account's counters are keyed by its id (`accountKey`), whatever spelling
 * of its address found it; an address without an account by the form the database compared.
 */
import type { AddressLookup } from '../store/contract.js';

/**
 * account: failed passwords for one account from one address (a lock there locks out only that address);
 * account_total: from any address (bounds a distributed guess; the password-reset path stays open);
 * code_mails: setup and reset codes mailed per account; code_guesses: setup and reset codes typed per account;
 * second_factor: TOTP and recovery codes and passkeys typed per account after its password;
 * ip: sign-in posts per address; interaction: codes per sign-in; challenges: passkey options per sign-in (or
 * account session), challenges_ip: per address; api: requests per API token;
 * client_auth: failed client authentications per client and address at the token endpoint;
 * account_changes: changes per person on the account page;
 * user_codes: device user codes typed per address (guessing a code someone else's device shows);
 * device_polls: token requests per device code within the polling interval (more than one answers slow_down).
 */
export type LimitKind =
  | 'account'
  | 'account_total'
  | 'code_mails'
  | 'code_guesses'
  | 'second_factor'
  | 'ip'
  | 'interaction'
  | 'challenges'
  | 'challenges_ip'
  | 'api'
  | 'client_auth'
  | 'account_changes'
  | 'user_codes'
  | 'device_polls';

export type LimitOutcome = { allowed: true } | { allowed: false; kind: LimitKind; retryAfterSeconds: number };

export interface RateLimits {
  /** Counts one attempt under each key; refused when any of them is over its limit. */
  attempt(keys: Array<[LimitKind, string]>): Promise<LimitOutcome>;
  /** Refused when any key has used up its limit; counts nothing. */
  check(keys: Array<[LimitKind, string]>): Promise<LimitOutcome>;
  /** Forgets the counter (a correct password ends an account's run of failures). */
  reset(kind: LimitKind, key: string): Promise<void>;
  close(): void;
}

/** The counters' key of a known user. */
export const userKey = (user: { id: number }) => `user:${user.id}`;

/**
 * The counters' key of a typed address: its account's, once the lookup found one (every spelling that finds the
 * account shares its counters); else the address as the database compared it, so an unknown address is counted
 * like a known one and spellings the database holds equal are one.
 */
export const accountKey = (lookup: AddressLookup) => (lookup.record ? userKey(lookup.record.user) : `address:${lookup.comparable}`);
