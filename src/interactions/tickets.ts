/**
 * Where a sign-in stands between pages, carried in a hidden field: "this interaction's user passed the
 * password; next comes the second factor (or enrolment, or the recovery codes page)". HMAC-signed and
 * bound to the interaction uid, so it cannot be forged or carried into another sign-in.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type Stage = 'mfa' | 'enrol' | 'done';

export interface Ticket {
  /** The user's uuid. */
  user: string;
  stage: Stage;
  /** Authentication methods used so far (RFC 8176). */
  amr: string[];
}

const LIFETIME_MS = 15 * 60_000;

export function ticketSigner(secret: string) {
  const key = createHmac('sha256', secret).update('idp interaction ticket v1').digest();
  const mac = (uid: string, body: string) => createHmac('sha256', key).update(`${uid}.${body}`).digest('base64url');
  return {
    sign(uid: string, ticket: Ticket, now = Date.now()): string {
      const body = Buffer.from(JSON.stringify({ ...ticket, exp: now + LIFETIME_MS })).toString('base64url');
      return `${body}.${mac(uid, body)}`;
    },
    /** The ticket when it is genuine, for this interaction, at this stage and not expired. */
    verify(uid: string, token: unknown, stage: Stage, now = Date.now()): Ticket | undefined {
      if (typeof token !== 'string') return undefined;
      const [body, given] = token.split('.');
      if (!body || !given) return undefined;
      const expected = Buffer.from(mac(uid, body));
      if (Buffer.from(given).length !== expected.length || !timingSafeEqual(Buffer.from(given), expected)) return undefined;
      const ticket = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Ticket & { exp: number };
      return ticket.stage === stage && ticket.exp > now ? { user: ticket.user, stage: ticket.stage, amr: ticket.amr } : undefined;
    },
  };
}
export type TicketSigner = ReturnType<typeof ticketSigner>;
