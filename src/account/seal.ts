/**
 * Short-lived signed values of the account page (its cookie, the sign-in's state and PKCE verifier): a keyed MAC
 * over the body, bound to a purpose, with an expiry. Readable by the browser, never forgeable or reusable elsewhere.
 */
import { secretsFrom } from '../domain/secrets.js';

export function sealer(secret: string) {
  const secrets = secretsFrom(secret);
  const mac = (purpose: string, body: string) => secrets.mac('ticket', `${purpose}.${body}`);
  return {
    seal(purpose: string, value: unknown, seconds: number): string {
      const body = Buffer.from(JSON.stringify({ value, exp: Date.now() + seconds * 1000 })).toString('base64url');
      return `${body}.${mac(purpose, body)}`;
    },
    /** The value when the token is genuine, for this purpose and not expired. */
    unseal<T>(purpose: string, token: unknown): T | undefined {
      if (typeof token !== 'string') return undefined;
      const [body, given] = token.split('.');
      if (!body || !given || !secrets.equal(given, mac(purpose, body))) return undefined;
      const { value, exp } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { value: T; exp: number };
      return exp > Date.now() ? value : undefined;
    },
  };
}
export type Sealer = ReturnType<typeof sealer>;
