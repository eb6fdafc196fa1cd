/**
 * Validates merged configuration and turns every problem into one line naming the key and the rule in plain words
 * (an operator fixes them all in one edit, not one per start).
 */
import { Ajv, type ErrorObject } from 'ajv';
import { settingsSchema, type ApplicationSettings, type Settings } from './schema.js';
import { isSecureOrLoopbackUrl } from '../loopback.js';
import { ConfigError, collect } from './config-error.js';
import { checkApplications, secretFromEnvironment } from './application-rules.js';
import { checkSources } from './source-rules.js';
import { checkLanguages } from './i18n-rules.js';

export { ConfigError } from './config-error.js';

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
  '^[A-Za-z0-9_:/-]+(\\.[A-Za-z0-9_:/-]+)*$':
    'must be a claim name, or a dotted path of names (letters, digits, _, :, / and -) such as groups or realm_access.roles',
  '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$': 'must be a lower-case domain name such as corp.example',
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
  const sourceProblems = valid
    ? collect([() => checkSources(raw as Settings), () => checkProvisioning(raw as Settings), () => checkLanguages(raw as Settings)])
    : [];
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

/** `applications[3]` means little in a long list: the message also names the entry by its slug, when it has one. */
function namingTheApplication(message: string, raw: unknown): string {
  const [, list, index] = /^config: (applications|sources)\[(\d+)\]/.exec(message) ?? [];
  const entries = list ? (raw as Record<string, Array<{ slug?: unknown }> | undefined>)[list] : undefined;
  const slug = Array.isArray(entries) ? entries[Number(index)]?.slug : undefined;
  if (typeof slug !== 'string' || !slug || message.includes(`"${slug}"`)) return message;
  return `${message} (${list === 'sources' ? 'source' : 'application'} "${slug}")`;
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
