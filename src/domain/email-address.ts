/**
 * The one rule for an e-mail address the service is given to keep — a user's address through the API, a new
 * address on the account page: ASCII only (the HTML5/ajv-formats "email" grammar), at most 254 characters. A
 * look-alike letter from another script (`ceo@corp.tеst` with a Cyrillic е), markup (`<script>@x`) or a quote
 * (`x"@y`) is refused. Internationalised domains are written in their ASCII form (`xn--…`).
 */
export const EMAIL_MAX_LENGTH = 254;

/** ajv-formats' full-mode `email` (the API's schema format uses this very pattern, src/api/validate.ts). */
export const EMAIL_ADDRESS =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/** The domain of an address, lower-case: what home-realm discovery and registration's domain rules compare. */
export const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

export const isEmailAddress = (value: string): boolean => value.length <= EMAIL_MAX_LENGTH && EMAIL_ADDRESS.test(value);
