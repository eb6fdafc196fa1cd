/**
 * The account page's own client. /account/ signs people in the way every application does — through the
 * engine's authorization endpoint, the same SSO session and the same sign-in pages — as a built-in confidential
 * client that is never in the configuration (its slug and client_id are reserved).
 */
import type { ApplicationSettings, Settings } from '../settings/schema.js';
import { ACCOUNT_CLIENT_ID, ACCOUNT_SLUG } from '../settings/reserved.js';
import { secretsFrom } from './secrets.js';

export { ACCOUNT_CLIENT_ID, ACCOUNT_SLUG };
export const ACCOUNT_PATH = '/account/';
export const ACCOUNT_CALLBACK = '/account/callback';

export function accountApplication(settings: Settings): ApplicationSettings {
  const base = settings.issuer.base_url.replace(/\/$/, '');
  return {
    slug: ACCOUNT_SLUG,
    name: 'your account',
    client_id: ACCOUNT_CLIENT_ID,
    client_type: 'confidential',
    // Nobody outside the process redeems its codes (src/account/callback.ts does, in-process); a secret still guards the token endpoint.
    client_secret: secretsFrom(settings.secrets.key).mac('ticket', 'account client secret'),
    grant_types: ['authorization_code'],
    redirect_uris: [`${base}${ACCOUNT_CALLBACK}`],
    post_logout_redirect_uris: [`${base}/`],
    api_scopes: [],
    resource_server: false,
    scopes: ['openid', 'profile', 'email'],
    require_mfa: false,
    id_token_signed_response_alg: 'RS256',
    tokens: {},
  };
}

/** The configured applications and the account page's client: every provider the service runs. */
export const everyApplication = (settings: Settings): ApplicationSettings[] => [...settings.applications, accountApplication(settings)];
