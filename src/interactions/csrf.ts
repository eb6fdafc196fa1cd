/** CSRF tokens bound to one interaction (or recovery link): a keyed MAC of its id, so a token from another flow never fits. */
import { secretsFrom } from '../domain/secrets.js';

export function csrfTokens(secret: string) {
  const secrets = secretsFrom(secret);
  const tokenFor = (uid: string) => secrets.mac('csrf', uid);
  return {
    tokenFor,
    isValid: (uid: string, token: unknown): boolean => secrets.equal(token, tokenFor(uid)),
  };
}
export type CsrfTokens = ReturnType<typeof csrfTokens>;
