/** Validates merged configuration and turns the first problem into one line naming the key and the rule. */
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
  const { type, minimum, maximum, exclusiveMinimum, enum: allowed, pattern } = schema as {
    type?: string; minimum?: number; maximum?: number; exclusiveMinimum?: number; enum?: string[]; pattern?: string;
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
  if (check(raw)) {
    checkApplications(raw.applications, raw.webhooks.allow_insecure_loopback);
    checkWebhooks(raw);
    return raw;
  }
  throw new ConfigError(formatConfigError(check.errors![0]));
}

/** Slugs that would shadow the shared endpoints under /application/o/. */
const RESERVED_SLUGS = new Set(['authorize', 'token', 'userinfo']);
/** https anywhere; plain http only on loopback (local development). No fragments. */
const isAllowedRedirect = (value: string) => isSecureOrLoopbackUrl(value, true) && !new URL(value).hash;

/** Rules across entries (uniqueness) and inside one (URLs, secret source) that JSON Schema cannot say well. */
function checkApplications(applications: ApplicationSettings[], allowInsecureLoopback: boolean): void {
  const slugs = new Set<string>();
  const clientIds = new Set<string>();
  applications.forEach((app, index) => {
    const key = `config: applications[${index}]`;
    if (RESERVED_SLUGS.has(app.slug)) throw new ConfigError(`${key}.slug "${app.slug}" is reserved (authorize, token, userinfo)`);
    if (slugs.has(app.slug)) throw new ConfigError(`${key}.slug "${app.slug}" is used by another application`);
    if (clientIds.has(app.client_id)) throw new ConfigError(`${key}.client_id "${app.client_id}" is used by another application`);
    slugs.add(app.slug);
    clientIds.add(app.client_id);
    for (const field of ['redirect_uris', 'post_logout_redirect_uris'] as const) {
      app[field].forEach((uri, i) => {
        if (!isAllowedRedirect(uri)) throw new ConfigError(`${key}.${field}[${i}] must be an absolute https URL (http only on localhost/127.0.0.1), without a fragment`);
      });
    }
    // The sender's rule (jobs/http-attempt.ts): a receiver is https, or http on loopback when the operator allows it.
    if (app.backchannel_logout_uri !== undefined && !isSecureOrLoopbackUrl(app.backchannel_logout_uri, allowInsecureLoopback)) {
      throw new ConfigError(`${key}.backchannel_logout_uri must be an https URL (http only on loopback with webhooks.allow_insecure_loopback)`);
    }
    if (!app.scopes.includes('openid')) throw new ConfigError(`${key}.scopes must include openid`);
    if (app.client_secret !== undefined && app.client_secret_env !== undefined) {
      throw new ConfigError(`${key} sets both client_secret and client_secret_env; keep one`);
    }
    if (app.client_secret_env !== undefined) {
      const secret = process.env[app.client_secret_env];
      if (!secret || secret.length < 16) {
        throw new ConfigError(`${key}.client_secret_env names ${app.client_secret_env}, which must be set to at least 16 characters`);
      }
      app.client_secret = secret;
    }
    if (app.client_secret === undefined) throw new ConfigError(`${key}.client_secret is required (or client_secret_env)`);
  });
}

/** Webhook receivers must use https (spec §6.1); loopback http only when the operator allows it (tests). */
function checkWebhooks(settings: Settings): void {
  settings.applications.forEach((app, index) => {
    const webhook = app.webhook;
    if (!webhook) return;
    const key = `config: applications[${index}].webhook`;
    if (!isSecureOrLoopbackUrl(webhook.url, settings.webhooks.allow_insecure_loopback)) throw new ConfigError(`${key}.url must be an https URL (http only on loopback with webhooks.allow_insecure_loopback)`);
    if (webhook.secret !== undefined && webhook.secret_env !== undefined) throw new ConfigError(`${key} sets both secret and secret_env; keep one`);
    if (webhook.secret_env !== undefined) {
      const secret = process.env[webhook.secret_env];
      if (!secret || secret.length < 16) throw new ConfigError(`${key}.secret_env names ${webhook.secret_env}, which must be set to at least 16 characters`);
      webhook.secret = secret;
    }
    if (webhook.secret === undefined) throw new ConfigError(`${key}.secret is required (or secret_env)`);
  });
}
