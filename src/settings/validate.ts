/**
 * Validates merged configuration and turns every problem into one line naming the key and the rule in plain words
 * (an operator fixes them all in one edit, not one per start).
 */
import { ACCOUNT_CLIENT_ID, ACCOUNT_SLUG } from './reserved.js';
import { Ajv, type ErrorObject } from 'ajv';
import { settingsSchema, type ApplicationSettings, type Settings, type SourceSettings } from './schema.js';
import { isSecureOrLoopbackUrl } from '../loopback.js';
import { environmentValue } from './environment.js';

/** One or more configuration problems, each a line starting with `config: `; the message is those lines. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: string[];
  constructor(problems: string | string[]) {
    const lines = typeof problems === 'string' ? [problems] : problems;
    super(lines.join('\n'));
    this.problems = lines;
  }
}

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, verbose: true, useDefaults: true });
const check = ajv.compile<Settings>(settingsSchema);

/** `/applications/0/slug` → `applications[0].slug` */
function keyOf(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (extra) parts.push(extra);
  return parts.reduce((key, part) => (/^\d+$/.test(part) ? `${key}[${part}]` : key ? `${key}.${part}` : part), '');
}

/**
 * Each pattern of the schema in words: a message shows these, never the regular expression (a test holds every
 * pattern of the schema to having words here).
 */
export const PATTERN_WORDS: Record<string, string> = {
  '^https?://[^/?#@]+/?$': 'must be an origin such as https://id.example.com (http or https, a host name, no path, query or user name)',
  '^$|^postgres(ql)?://': 'must be a postgres:// URL, or empty for the embedded database',
  '^$|^rediss?://': 'must be a redis:// or rediss:// URL',
  '^[A-Za-z0-9_:-]{1,64}$': 'must be 1 to 64 letters, digits, _, : or -',
  '^$|^.{32,}$': 'must be at least 32 characters long (or empty)',
  '^$|^.{16,}$': 'must be at least 16 characters long (or empty)',
  '^.{16,}$': 'must be at least 16 characters long',
  '^(|smtps?://.+)$': 'must be an smtp:// or smtps:// URL (or empty)',
  '^[a-z0-9][a-z0-9-]{0,62}$': 'must be 1 to 63 lowercase letters, digits and dashes, starting with a letter or digit',
  '^[\\x21-\\x7e]{1,255}$': 'must be 1 to 255 printable ASCII characters without spaces',
  '^[A-Za-z_][A-Za-z0-9_]*$': 'must be the name of an environment variable (letters, digits and _, not starting with a digit)',
  '^[A-Za-z0-9][A-Za-z0-9_:./-]{0,127}$': 'must be 1 to 128 letters, digits, _, :, ., / or -, starting with a letter or digit',
  '^https?://': 'must be an http:// or https:// URL',
  '^$|^https?://': 'must be an http:// or https:// URL, or empty',
  '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$': 'must be printable ASCII characters without spaces, " or \\',
  '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$': 'must be a claim name, or a dotted path of names (letters, digits, _ and -) such as user.email',
};

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
  // A key of several forms: its description starts with them ("a list of source slugs, or "*" for every source: …").
  if (schema.anyOf) return `must be ${String(schema.description ?? '').split(':')[0]}`;
  if (type === 'integer' || type === 'number') {
    const noun = type === 'integer' ? 'an integer' : 'a number';
    if (minimum !== undefined && maximum !== undefined) return `must be ${noun} between ${minimum} and ${maximum}`;
    if (minimum !== undefined) return `must be ${noun} ≥ ${minimum}`;
    if (exclusiveMinimum !== undefined) return `must be ${noun} > ${exclusiveMinimum}${maximum !== undefined ? ` and ≤ ${maximum}` : ''}`;
    return `must be ${noun}`;
  }
  if (type === 'string' && pattern) return PATTERN_WORDS[pattern] ?? 'is not in the form docs/configuration.md describes';
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

/** Every problem with the configuration, or the validated settings (defaults filled in, secrets from the environment read). */
export function validateSettings(raw: unknown): Settings {
  const valid = check(raw);
  const schemaProblems = valid ? [] : [...new Set(withoutAnyOfBranches(check.errors!).map(formatConfigError))];
  // The rules JSON Schema cannot say are checked on every application the schema found nothing wrong with.
  const broken = new Set((check.errors ?? []).map((error) => /^\/applications\/(\d+)/.exec(error.instancePath)?.[1]).filter(Boolean));
  const shaped = raw as Partial<Settings>;
  const ruleProblems =
    Array.isArray(shaped.applications) && typeof shaped.webhooks?.allow_insecure_loopback === 'boolean'
      ? [
          ...checkApplications(shaped.applications, shaped.webhooks.allow_insecure_loopback, broken),
          ...checkWebhooks(shaped.applications, shaped.webhooks.allow_insecure_loopback, broken),
          ...checkPublicApplications(shaped),
        ]
      : [];
  // Sources are checked once the schema holds (their rules read fields it guarantees).
  const sourceProblems = valid ? collect([() => checkSources(raw as Settings), () => checkProvisioning(raw as Settings)]) : [];
  const problems = [...schemaProblems, ...ruleProblems, ...sourceProblems].map((message) => namingTheApplication(message, raw));
  if (problems.length) throw new ConfigError(problems);
  return raw as Settings;
}

/**
 * A key of several forms (anyOf) fails with one error per form and then its own, which names every form: only that
 * one is reported (not "must be a list" and "must be one of *" besides it).
 */
function withoutAnyOfBranches(errors: ErrorObject[]): ErrorObject[] {
  const forms = errors.filter((error) => error.keyword === 'anyOf').map((error) => error.instancePath);
  const insideForm = (path: string) => forms.some((form) => path === form || path.startsWith(`${form}/`));
  return errors.filter((error) => error.keyword === 'anyOf' || !insideForm(error.instancePath));
}

/** Runs each check, collecting the problem it throws: independent rules each report their own. */
function collect(checks: Array<() => void>): string[] {
  const problems: string[] = [];
  for (const run of checks) {
    try {
      run();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  return problems;
}

/** `applications[3]` means little in a long list: the message also names the entry by its slug, when it has one. */
function namingTheApplication(message: string, raw: unknown): string {
  const [, list, index] = /^config: (applications|sources)\[(\d+)\]/.exec(message) ?? [];
  const entries = list ? (raw as Record<string, Array<{ slug?: unknown }> | undefined>)[list] : undefined;
  const slug = Array.isArray(entries) ? entries[Number(index)]?.slug : undefined;
  if (typeof slug !== 'string' || !slug || message.includes(`"${slug}"`)) return message;
  return `${message} (${list === 'sources' ? 'source' : 'application'} "${slug}")`;
}

/** Slugs that would shadow the shared endpoints under /application/o/. */
const RESERVED_SLUGS = new Set(['authorize', 'token', 'userinfo', 'introspect', 'revoke', 'device', ACCOUNT_SLUG]);
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
function checkApplications(applications: ApplicationSettings[], allowInsecureLoopback: boolean, broken: Set<string | undefined>): string[] {
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
        if (app.client_id === ACCOUNT_CLIENT_ID)
          throw new ConfigError(`${key}.client_id "${app.client_id}" is reserved for the account page`);
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
function secretFromEnvironment(key: string, name: string): string {
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

/** The landing page names applications by slug: each must be one of them. */
function checkPublicApplications(settings: Partial<Settings>): string[] {
  const named = settings.landing?.public_applications;
  if (!Array.isArray(named) || !Array.isArray(settings.applications)) return [];
  const slugs = new Set(settings.applications.map((app) => app.slug));
  return named.flatMap((slug, i) =>
    slugs.has(slug) ? [] : [`config: landing.public_applications[${i}] "${slug}" is not the slug of an application in applications[]`],
  );
}

/** Webhook receivers must use https (spec §6.1); loopback http only when the operator allows it (tests). */
function checkWebhooks(applications: ApplicationSettings[], allowInsecureLoopback: boolean, broken: Set<string | undefined>): string[] {
  return applications.flatMap((app, index) => {
    const webhook = app.webhook;
    if (!webhook || broken.has(String(index))) return [];
    const key = `config: applications[${index}].webhook`;
    return collect([
      () => {
        if (!isSecureOrLoopbackUrl(webhook.url, allowInsecureLoopback))
          throw new ConfigError(`${key}.url must be an https URL (http only on loopback with webhooks.allow_insecure_loopback)`);
      },
      () => {
        webhook.secret = webhookSecret(key, 'secret', webhook.secret, webhook.secret_env);
        if (webhook.secret === undefined) throw new ConfigError(`${key}.secret is required (or secret_env)`);
        webhook.previous_secret = webhookSecret(key, 'previous_secret', webhook.previous_secret, webhook.previous_secret_env);
        if (webhook.previous_secret === webhook.secret)
          throw new ConfigError(`${key}.previous_secret is the same as secret; set secret to the new one`);
      },
    ]);
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
  return secretFromEnvironment(`${key}.${name}_env`, envName);
}

/** Scopes an OpenID Connect source asks for unless it lists its own. */
export const DEFAULT_OIDC_SCOPES = ['openid', 'email', 'profile'];

/**
 * Rules of `sources` the schema cannot say: unique slugs, the keys each type needs (and only those), upstream URLs
 * (https; http only on loopback, as for redirect URIs), the secret from one place; and every application's
 * `sources` naming sources that exist. Defaults that depend on the type are filled in here.
 */
function checkSources(settings: Settings): void {
  const slugs = new Set<string>();
  type UrlKey = 'issuer' | 'authorization_url' | 'token_url' | 'userinfo_url';
  const urls: Record<SourceSettings['type'], UrlKey[]> = {
    oidc: ['issuer'],
    oauth2: ['authorization_url', 'token_url', 'userinfo_url'],
  };
  const foreignKeys: Record<SourceSettings['type'], Array<keyof SourceSettings>> = {
    oidc: ['authorization_url', 'token_url', 'userinfo_url', 'claims'],
    oauth2: ['issuer'],
  };
  settings.sources.forEach((source: SourceSettings, index) => {
    const key = `config: sources[${index}]`;
    if (slugs.has(source.slug)) throw new ConfigError(`${key}.slug "${source.slug}" is used by another source`);
    slugs.add(source.slug);
    for (const field of urls[source.type]) {
      const value = source[field];
      if (value === undefined) throw new ConfigError(`${key}.${field} is required for a source of type ${source.type}`);
      if (!isSecureOrLoopbackUrl(value, true) || new URL(value).hash)
        throw new ConfigError(`${key}.${field} must be an absolute https URL (http only on localhost/127.0.0.1), without a fragment`);
    }
    for (const field of foreignKeys[source.type]) {
      if (source[field] !== undefined) throw new ConfigError(`${key}.${field} is not used by a source of type ${source.type}; remove it`);
    }
    source.scopes ??= source.type === 'oidc' ? [...DEFAULT_OIDC_SCOPES] : [];
    if (source.type === 'oidc' && !source.scopes.includes('openid')) throw new ConfigError(`${key}.scopes must include openid`);
    if (source.client_secret !== undefined && source.client_secret_env !== undefined)
      throw new ConfigError(`${key} sets both client_secret and client_secret_env; keep one`);
    if (source.client_secret_env !== undefined) {
      const secret = process.env[source.client_secret_env];
      if (!secret) throw new ConfigError(`${key}.client_secret_env names ${source.client_secret_env}, which must be set`);
      source.client_secret = secret;
    }
    if (source.client_secret === undefined) throw new ConfigError(`${key}.client_secret is required (or client_secret_env)`);
  });
  settings.applications.forEach((app, index) => {
    if (app.sources === undefined || app.sources === '*') return;
    app.sources.forEach((slug, i) => {
      if (!slugs.has(slug))
        throw new ConfigError(
          `config: applications[${index}].sources[${i}] "${slug}" names no source (sources: ${[...slugs].join(', ') || 'none'})`,
        );
    });
  });
}
