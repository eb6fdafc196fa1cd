/** CSRF tokens bound to one interaction: an HMAC of its uid, so a token from another flow never fits. */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function csrfTokens(secret: string) {
  const key = createHmac('sha256', secret).update('idp interaction csrf v1').digest();
  const tokenFor = (uid: string) => createHmac('sha256', key).update(uid).digest('base64url');
  return {
    tokenFor,
    isValid(uid: string, token: unknown): boolean {
      if (typeof token !== 'string') return false;
      const expected = Buffer.from(tokenFor(uid));
      const given = Buffer.from(token);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
export type CsrfTokens = ReturnType<typeof csrfTokens>;
