/**
 * Where a sign-in stands between pages, carried in a hidden field: "this interaction's user passed the
 * password; next comes the second factor (or enrolment, or the recovery codes page)", or "a reset code was
 * asked for this address". HMAC-signed and bound to the interaction uid, so it cannot be forged or carried into
 * another sign-in.
 */
import { secretsFrom } from '../domain/secrets.js';
import type { PendingLink } from '../domain/source-links.js';

/** `link`: a person from an upstream identity provider proves the account that has their address (src/sources/). */
/** `register`: a self-registration waits for its mailed code (the typed details sealed in `registration`). */
export type Stage = 'mfa' | 'enrol' | 'done' | 'reset' | 'link' | 'register';

export interface Ticket {
  /**
   * The user's uuid. At the 'reset' stage (the "forgot your password?" code page) the e-mail as typed instead:
   * the address may have no account, and the page must not tell.
   */
  user: string;
  stage: Stage;
  /** Authentication methods used so far (RFC 8176). */
  amr: string[];
  /** The upstream identity to link once the account is proven (its password, then its second factor when it has one). */
  link?: PendingLink;
  /** A self-registration's details, sealed (they hold the password's hash): src/interactions/register.ts. */
  registration?: string;
}

const LIFETIME_MS = 15 * 60_000;

export function ticketSigner(secret: string) {
  const secrets = secretsFrom(secret);
  const mac = (uid: string, body: string) => secrets.mac('ticket', `${uid}.${body}`);
  return {
    sign(uid: string, ticket: Ticket, now = Date.now()): string {
      const body = Buffer.from(JSON.stringify({ ...ticket, exp: now + LIFETIME_MS })).toString('base64url');
      return `${body}.${mac(uid, body)}`;
    },
    /** The ticket when it is genuine, for this interaction, at this stage and not expired. */
    verify(uid: string, token: unknown, stage: Stage, now = Date.now()): Ticket | undefined {
      if (typeof token !== 'string') return undefined;
      const parts = token.split('.');
      if (parts.length !== 2) return undefined; // exactly body.mac: nothing may ride along after the signature
      const [body, given] = parts as [string, string];
      if (!body || !given) return undefined;
      if (!secrets.equal(given, mac(uid, body))) return undefined;
      const ticket = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Ticket & { exp: number };
      if (ticket.stage !== stage || !(ticket.exp > now)) return undefined;
      return {
        user: ticket.user,
        stage: ticket.stage,
        amr: ticket.amr,
        ...(ticket.link ? { link: ticket.link } : {}),
        ...(ticket.registration ? { registration: ticket.registration } : {}),
      };
    },
  };
}
export type TicketSigner = ReturnType<typeof ticketSigner>;
