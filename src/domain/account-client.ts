/**
 * The built-in clients of the service's own pages: the account page (/account/) and the admin console (/admin/).
 * Each signs people in the way every application does — through the engine's authorization endpoint, the same SSO
 * session and the same sign-in pages — as a confidential client that is never in the configuration (their slugs and
 * client_ids are reserved). The console's requires a second factor unless `admin.require_mfa` is false.
 */
import type { ApplicationSettings, Settings } from '../settings/schema.js';
import { ACCOUNT_CLIENT_ID, ACCOUNT_SLUG, ADMIN_CLIENT_ID, ADMIN_SLUG } from '../settings/reserved.js';
import { secretsFrom } from './secrets.js';

export { ACCOUNT_CLIENT_ID, ACCOUNT_SLUG, ADMIN_CLIENT_ID, ADMIN_SLUG };

export const accountApplication = (settings: Settings) =>
  builtIn(settings, { slug: ACCOUNT_SLUG, clientId: ACCOUNT_CLIENT_ID, name: 'your account', path: '/account', requireMfa: false });

export const adminApplication = (settings: Settings) =>
  builtIn(settings, {
    slug: ADMIN_SLUG,
    clientId: ADMIN_CLIENT_ID,
    name: 'the admin console',
    path: '/admin',
    requireMfa: settings.admin.require_mfa,
  });

function builtIn(
  settings: Settings,
  client: { slug: string; clientId: string; name: string; path: string; requireMfa: boolean },
): ApplicationSettings {
  const base = settings.issuer.base_url.replace(/\/$/, '');
  return {
    slug: client.slug,
    name: client.name,
    client_id: client.clientId,
    client_type: 'confidential',
    // Nobody outside the process redeems its codes (src/account/callback.ts does, in-process); a secret still guards the token endpoint.
    client_secret: secretsFrom(settings.secrets.key).mac('ticket', `${client.slug} client secret`),
    grant_types: ['authorization_code'],
    redirect_uris: [`${base}${client.path}/callback`],
    post_logout_redirect_uris: [`${base}/`],
    api_scopes: [],
    resource_server: false,
    scopes: ['openid', 'profile', 'email'],
    require_mfa: client.requireMfa,
    registration: { enabled: false, email_domains: [], groups: [] },
    id_token_signed_response_alg: 'RS256',
    tokens: {},
  };
}

/** The configured applications and the built-in clients: every provider the service runs. */
export const everyApplication = (settings: Settings): ApplicationSettings[] => [
  ...settings.applications,
  accountApplication(settings),
  adminApplication(settings),
];
