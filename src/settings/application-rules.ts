/**
 * The rules of the `applications:` list that JSON Schema cannot say well: unique slugs and client ids, redirect URIs
 * and origins, the client type and where a secret comes from (validate.ts reports what they find).
 */
import { ACCOUNT_CLIENT_ID, ACCOUNT_SLUG, ADMIN_CLIENT_ID, ADMIN_SLUG } from './reserved.js';
import type { ApplicationSettings } from './schema.js';
import { isSecureOrLoopbackUrl } from '../loopback.js';
import { environmentValue } from './environment.js';
import { ConfigError, collect } from './config-error.js';

/** Slugs that would shadow the shared endpoints under /application/o/. */
const RESERVED_SLUGS = new Set(['authorize', 'token', 'userinfo', 'introspect', 'revoke', 'device', ACCOUNT_SLUG, ADMIN_SLUG]);
const BUILT_IN_SCOPES = new Set(['openid', 'profile', 'email', 'offline_access']);

/** https anywhere; plain http only on loopback (local development). No fragments. */
const isWebRedirect = (value: string) => isSecureOrLoopbackUrl(value, true) && !new URL(value).hash;

/** RFC 8252 §7.1: a private-use scheme in reverse-domain form (com.example.app:/cb), never one a browser runs. */
export function isPrivateUseRedirect(value: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  return scheme !== undefined && scheme.includes('.') && URL.canParse(value) && !new URL(value).hash;
}

/** The origin a browser app calls from, e.g. https://app.example.com (https; http on loopback). */
const isOrigin = (value: string) => isSecureOrLoopbackUrl(value, true) && new URL(value).origin === value;

/**
 * Rules across entries (uniqueness) and inside one (URLs, client type, secret source) that JSON Schema cannot say
 * well. Each group of rules reports its first problem; the groups of every application are checked.
 */
export function checkApplications(
  applications: ApplicationSettings[],
  allowInsecureLoopback: boolean,
  broken: Set<string | undefined>,
): string[] {
  const slugs = new Set<string>();
  const clientIds = new Set<string>();
  return applications.flatMap((app, index) => {
    if (broken.has(String(index))) return [];
    const key = `config: applications[${index}]`;
    const isPublic = app.client_type === 'public';
    let redirectsHold = false;
    return collect([
      () => {
        if (RESERVED_SLUGS.has(app.slug))
          throw new ConfigError(`${key}.slug "${app.slug}" is reserved (${[...RESERVED_SLUGS].join(', ')})`);
        if (slugs.has(app.slug)) throw new ConfigError(`${key}.slug "${app.slug}" is used by another application`);
        slugs.add(app.slug);
      },
      () => {
        if (app.client_id === ACCOUNT_CLIENT_ID || app.client_id === ADMIN_CLIENT_ID)
          throw new ConfigError(
            `${key}.client_id "${app.client_id}" is reserved for ${app.client_id === ACCOUNT_CLIENT_ID ? 'the account page' : 'the admin console'}`,
          );
        if (clientIds.has(app.client_id)) throw new ConfigError(`${key}.client_id "${app.client_id}" is used by another application`);
        clientIds.add(app.client_id);
      },
      () => {
        checkRedirects(app, key);
        redirectsHold = true;
      },
      // The engine's rules per application type read the redirect URIs: only once they are URLs at all.
      () => {
        if (redirectsHold) checkApplicationType(app, key);
      },
      () =>
        (app.allowed_origins ?? []).forEach((origin, i) => {
          if (!isOrigin(origin))
            throw new ConfigError(
              `${key}.allowed_origins[${i}] must be an origin such as https://app.example.com (no path; http only on localhost/127.0.0.1)`,
            );
        }),
      () => {
        // The sender's rule (jobs/http-attempt.ts): a receiver is https, or http on loopback when the operator allows it.
        if (app.backchannel_logout_uri !== undefined && !isSecureOrLoopbackUrl(app.backchannel_logout_uri, allowInsecureLoopback)) {
          throw new ConfigError(
            `${key}.backchannel_logout_uri must be an https URL (http only on loopback with webhooks.allow_insecure_loopback)`,
          );
        }
      },
      () => {
        if (!app.scopes.includes('openid')) throw new ConfigError(`${key}.scopes must include openid`);
        app.api_scopes.forEach((scope, i) => {
          if (scope === 'offline_access')
            throw new ConfigError(`${key}.api_scopes[${i}] "offline_access" is a built-in scope, granted with the refresh_token grant`);
          if (BUILT_IN_SCOPES.has(scope))
            throw new ConfigError(`${key}.api_scopes[${i}] "${scope}" is a built-in scope; list it in scopes`);
        });
      },
      () => {
        if (isPublic && app.grant_types.includes('client_credentials'))
          throw new ConfigError(`${key}.grant_types: client_credentials needs a confidential application (a public one has no secret)`);
      },
      () => checkClientSecret(app, key),
      () => {
        // A new account that may not sign in would be made for nothing.
        const registration = app.registration;
        if (registration?.enabled && app.access_group && !registration.groups.includes(app.access_group))
          throw new ConfigError(
            `${key}.registration.groups must include access_group "${app.access_group}": new accounts could not sign in`,
          );
      },
    ]);
  });
}

function checkRedirects(app: ApplicationSettings, key: string): void {
  const isPublic = app.client_type === 'public';
  if (app.grant_types.includes('authorization_code') && !app.redirect_uris.length)
    throw new ConfigError(`${key}.redirect_uris is required with the authorization_code grant`);
  app.redirect_uris.forEach((uri, i) => {
    if (isWebRedirect(uri)) return;
    if (!isPrivateUseRedirect(uri))
      throw new ConfigError(
        `${key}.redirect_uris[${i}] must be an absolute https URL (http only on localhost/127.0.0.1), without a fragment`,
      );
    if (!isPublic)
      throw new ConfigError(`${key}.redirect_uris[${i}] uses a private-use scheme: only public applications (client_type: public) may`);
  });
  app.post_logout_redirect_uris.forEach((uri, i) => {
    if (!isWebRedirect(uri) && !(isPublic && isPrivateUseRedirect(uri))) {
      throw new ConfigError(
        `${key}.post_logout_redirect_uris[${i}] must be an absolute https URL (http only on localhost/127.0.0.1), without a fragment`,
      );
    }
  });
}

/** A confidential application's secret, inline or from an environment variable (or its `_FILE`); a public one has none. */
function checkClientSecret(app: ApplicationSettings, key: string): void {
  if (app.client_secret !== undefined && app.client_secret_env !== undefined) {
    throw new ConfigError(`${key} sets both client_secret and client_secret_env; keep one`);
  }
  if (app.client_type === 'public') {
    if (app.client_secret !== undefined || app.client_secret_env !== undefined) {
      throw new ConfigError(`${key} is public (client_type: public) and must not have a client_secret: it cannot keep one`);
    }
    return;
  }
  if (app.client_secret_env !== undefined) app.client_secret = secretFromEnvironment(`${key}.client_secret_env`, app.client_secret_env);
  if (app.client_secret === undefined)
    throw new ConfigError(
      `${key}.client_secret is required for a confidential application (or client_secret_env; or set client_type: public)`,
    );
}

/** The secret an environment variable (or the file its `_FILE` twin names) holds: at least 16 characters. */
export function secretFromEnvironment(key: string, name: string): string {
  const { value, problem } = environmentValue(name);
  if (problem) throw new ConfigError(problem);
  if (!value || value.length < 16)
    throw new ConfigError(`${key} names ${name}, which must be set to at least 16 characters (or ${name}_FILE)`);
  return value;
}

/** The engine's loopback hosts (oidc-provider's consts LOOPBACKS): a native app's http redirects use these, its https ones never do. */
const NATIVE_LOOPBACKS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** RFC 8252: a public application whose redirects use a private-use scheme or a loopback IP literal is a native app. */
function derivedApplicationType(app: ApplicationSettings): 'web' | 'native' {
  if (app.client_type !== 'public') return 'web';
  const native = app.redirect_uris.some((uri) => {
    const { protocol, hostname } = new URL(uri);
    return !['http:', 'https:'].includes(protocol) || (protocol === 'http:' && (hostname === '127.0.0.1' || hostname === '[::1]'));
  });
  return native ? 'native' : 'web';
}

/** Why the engine would refuse this redirect for an application of this type (its client_schema.js rules), if it would. */
function redirectProblem(type: 'web' | 'native', uri: string): string | undefined {
  const { protocol, hostname } = new URL(uri);
  if (type === 'web')
    return ['http:', 'https:'].includes(protocol) ? undefined : 'uses a private-use scheme, which only a native application receives';
  if (protocol === 'http:' && !NATIVE_LOOPBACKS.has(hostname))
    return 'uses http on a host other than localhost, 127.0.0.1 or [::1], which a native application may not';
  if (protocol === 'https:' && NATIVE_LOOPBACKS.has(hostname))
    return 'uses https on a loopback host, which a native application may not (http there)';
  return undefined;
}

/**
 * The application's type as the engine knows it: declared, or derived from the redirect URIs. Redirects the engine
 * would refuse for that type stop the start here, naming the key (the engine would fail the first request). The
 * resolved type is kept in the settings: the providers read it from there.
 */
function checkApplicationType(app: ApplicationSettings, key: string): void {
  const type = app.application_type ?? derivedApplicationType(app);
  const source = app.application_type ? `application_type: ${type}` : `application_type: ${type}, derived from its redirect URIs`;
  if (type === 'native' && app.client_type !== 'public')
    throw new ConfigError(`${key}.application_type native needs client_type: public (a native app cannot keep a secret, RFC 8252)`);
  for (const field of ['redirect_uris', 'post_logout_redirect_uris'] as const) {
    app[field].forEach((uri, i) => {
      const problem = redirectProblem(type, uri);
      if (problem) throw new ConfigError(`${key}.${field}[${i}] ${problem} (${source})`);
    });
  }
  app.application_type = type;
}
