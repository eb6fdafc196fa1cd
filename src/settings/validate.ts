/** Validates merged configuration and turns the first problem into one line naming the key and the rule. */
import { ACCOUNT_CLIENT_ID, ACCOUNT_SLUG } from './reserved.js';
import { Ajv, type ErrorObject } from 'ajv';
import { settingsSchema, type ApplicationSettings, type Settings } from './schema.js';
import { isSecureOrLoopbackUrl } from '../loopback.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, verbose: true, useDefaults: true });
const check = ajv.compile<Settings>(settingsSchema);

/** `/applications/0/slug` → `applications[0].slug` */
function keyOf(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (extra) parts.push(extra);
  return parts.reduce((key, part) => (/^\d+$/.test(part) ? `${key}[${part}]` : key ? `${key}.${part}` : part), '');
}

/** Describes the rule of the key's schema as a whole, so a type error and a range error read the same. */
export function describeRule(schema: Record<string, unknown>): string {
  const {
    type,
    minimum,
    maximum,
    exclusiveMinimum,
    enum: allowed,
    pattern,
  } = schema as {
    type?: string;
    minimum?: number;
    maximum?: number;
    exclusiveMinimum?: number;
    enum?: string[];
    pattern?: string;
  };
  if (allowed) return `must be one of ${allowed.join(', ')}`;
  if (type === 'integer' || type === 'number') {
    const noun = type === 'integer' ? 'an integer' : 'a number';
    if (minimum !== undefined && maximum !== undefined) return `must be ${noun} between ${minimum} and ${maximum}`;
    if (minimum !== undefined) return `must be ${noun} ≥ ${minimum}`;
    if (exclusiveMinimum !== undefined) return `must be ${noun} > ${exclusiveMinimum}${maximum !== undefined ? ` and ≤ ${maximum}` : ''}`;
    return `must be ${noun}`;
  }
  if (type === 'string' && pattern) return `must match ${pattern} (${String(schema.description ?? '')})`.replace(' ()', '');
  if (type === 'boolean') return 'must be true or false';
  if (type === 'array') return 'must be a list';
  if (type === 'object') return 'must be a mapping';
  return `must be a ${type}`;
}

export function formatConfigError(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `config: ${keyOf(error.instancePath, extra)} is not a known key`;
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `config: ${keyOf(error.instancePath, missing)} is required`;
  }
  const key = keyOf(error.instancePath) || '(root)';
  return `config: ${key} ${describeRule(error.parentSchema as Record<string, unknown>)}`;
}

export function validateSettings(raw: unknown): Settings {
  try {
    if (check(raw)) {
      checkApplications(raw.applications, raw.webhooks.allow_insecure_loopback);
      checkWebhooks(raw);
      checkProvisioning(raw);
      return raw;
    }
    throw new ConfigError(formatConfigError(check.errors![0]));
  } catch (error) {
    throw error instanceof ConfigError ? new ConfigError(namingTheApplication(error.message, raw)) : error;
  }
}

/** `applications[3]` means little in a long list: the message also names the entry by its slug, when it has one. */
function namingTheApplication(message: string, raw: unknown): string {
  const index = /^config: applications\[(\d+)\]/.exec(message)?.[1];
  const slug = index === undefined ? undefined : (raw as { applications?: Array<{ slug?: unknown }> }).applications?.[Number(index)]?.slug;
  if (typeof slug !== 'string' || !slug || message.includes(`"${slug}"`)) return message;
  return `${message} (application "${slug}")`;
}

/** Slugs that would shadow the shared endpoints under /application/o/. */
const RESERVED_SLUGS = new Set(['authorize', 'token', 'userinfo', 'introspect', 'revoke', ACCOUNT_SLUG]);
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

/** Rules across entries (uniqueness) and inside one (URLs, client type, secret source) that JSON Schema cannot say well. */
function checkApplications(applications: ApplicationSettings[], allowInsecureLoopback: boolean): void {
  const slugs = new Set<string>();
  const clientIds = new Set<string>();
  applications.forEach((app, index) => {
    const key = `config: applications[${index}]`;
    const isPublic = app.client_type === 'public';
    if (RESERVED_SLUGS.has(app.slug)) throw new ConfigError(`${key}.slug "${app.slug}" is reserved (${[...RESERVED_SLUGS].join(', ')})`);
    if (slugs.has(app.slug)) throw new ConfigError(`${key}.slug "${app.slug}" is used by another application`);
    if (app.client_id === ACCOUNT_CLIENT_ID) throw new ConfigError(`${key}.client_id "${app.client_id}" is reserved for the account page`);
    if (clientIds.has(app.client_id)) throw new ConfigError(`${key}.client_id "${app.client_id}" is used by another application`);
    slugs.add(app.slug);
    clientIds.add(app.client_id);
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
    checkApplicationType(app, key);
    (app.allowed_origins ?? []).forEach((origin, i) => {
      if (!isOrigin(origin))
        throw new ConfigError(
          `${key}.allowed_origins[${i}] must be an origin such as https://app.example.com (no path; http only on localhost/127.0.0.1)`,
        );
    });
    // The sender's rule (jobs/http-attempt.ts): a receiver is https, or http on loopback when the operator allows it.
    if (app.backchannel_logout_uri !== undefined && !isSecureOrLoopbackUrl(app.backchannel_logout_uri, allowInsecureLoopback)) {
      throw new ConfigError(
        `${key}.backchannel_logout_uri must be an https URL (http only on loopback with webhooks.allow_insecure_loopback)`,
      );
    }
    if (!app.scopes.includes('openid')) throw new ConfigError(`${key}.scopes must include openid`);
    app.api_scopes.forEach((scope, i) => {
      if (scope === 'offline_access')
        throw new ConfigError(`${key}.api_scopes[${i}] "offline_access" is a built-in scope, granted with the refresh_token grant`);
      if (BUILT_IN_SCOPES.has(scope)) throw new ConfigError(`${key}.api_scopes[${i}] "${scope}" is a built-in scope; list it in scopes`);
    });
    if (isPublic && app.grant_types.includes('client_credentials'))
      throw new ConfigError(`${key}.grant_types: client_credentials needs a confidential application (a public one has no secret)`);
    if (app.client_secret !== undefined && app.client_secret_env !== undefined) {
      throw new ConfigError(`${key} sets both client_secret and client_secret_env; keep one`);
    }
    if (isPublic) {
      if (app.client_secret !== undefined || app.client_secret_env !== undefined) {
        throw new ConfigError(`${key} is public (client_type: public) and must not have a client_secret: it cannot keep one`);
      }
      return;
    }
    if (app.client_secret_env !== undefined) {
      const secret = process.env[app.client_secret_env];
      if (!secret || secret.length < 16) {
        throw new ConfigError(`${key}.client_secret_env names ${app.client_secret_env}, which must be set to at least 16 characters`);
      }
      app.client_secret = secret;
    }
    if (app.client_secret === undefined)
      throw new ConfigError(
        `${key}.client_secret is required for a confidential application (or client_secret_env; or set client_type: public)`,
      );
  });
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

/** Webhook receivers must use https (spec §6.1); loopback http only when the operator allows it (tests). */
function checkWebhooks(settings: Settings): void {
  settings.applications.forEach((app, index) => {
    const webhook = app.webhook;
    if (!webhook) return;
    const key = `config: applications[${index}].webhook`;
    if (!isSecureOrLoopbackUrl(webhook.url, settings.webhooks.allow_insecure_loopback))
      throw new ConfigError(`${key}.url must be an https URL (http only on loopback with webhooks.allow_insecure_loopback)`);
    webhook.secret = webhookSecret(key, 'secret', webhook.secret, webhook.secret_env);
    if (webhook.secret === undefined) throw new ConfigError(`${key}.secret is required (or secret_env)`);
    webhook.previous_secret = webhookSecret(key, 'previous_secret', webhook.previous_secret, webhook.previous_secret_env);
    if (webhook.previous_secret === webhook.secret)
      throw new ConfigError(`${key}.previous_secret is the same as secret; set secret to the new one`);
  });
}

/** Outbound SCIM: an https endpoint (loopback http as for webhooks), a token in the environment, a scope that can be met. */
function checkProvisioning(settings: Settings): void {
  settings.applications.forEach((app, index) => {
    const scim = app.provisioning?.scim;
    if (!scim) return;
    const key = `config: applications[${index}].provisioning.scim`;
    if (!isSecureOrLoopbackUrl(scim.url, settings.webhooks.allow_insecure_loopback))
      throw new ConfigError(`${key}.url must be an https URL (http only on loopback with webhooks.allow_insecure_loopback)`);
    if (!process.env[scim.token_env])
      throw new ConfigError(`${key}.token_env names ${scim.token_env}, which must be set to the endpoint's token`);
    if (scim.scope === 'access_group' && !app.access_group)
      throw new ConfigError(`${key}.scope access_group needs applications[${index}].access_group (or scope: all)`);
  });
}

/** A webhook secret given inline or by the name of an environment variable (never both). */
function webhookSecret(
  key: string,
  name: 'secret' | 'previous_secret',
  inline: string | undefined,
  envName: string | undefined,
): string | undefined {
  if (inline !== undefined && envName !== undefined) throw new ConfigError(`${key} sets both ${name} and ${name}_env; keep one`);
  if (envName === undefined) return inline;
  const value = process.env[envName];
  if (!value || value.length < 16)
    throw new ConfigError(`${key}.${name}_env names ${envName}, which must be set to at least 16 characters`);
  return value;
}
