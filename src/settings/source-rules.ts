/**
 * The rules of the `sources:` list that JSON Schema cannot say well (validate.ts reports what they find): unique
 * slugs and home-realm domains, the keys each type needs (and only those), upstream URLs (https; http only on
 * loopback, as for redirect URIs), the secret from one place, a SAML metadata file that reads as one; and every
 * application's `sources` naming sources that exist. Defaults that depend on the type are filled in here.
 */
import { readFileSync } from 'node:fs';
import type { Settings, SourceSettings } from './schema.js';
import { isSecureOrLoopbackUrl } from '../loopback.js';
import { parseIdpMetadata } from '../saml-metadata.js';
import { ConfigError } from './config-error.js';

/** Scopes an OpenID Connect source asks for unless it lists its own. */
export const DEFAULT_OIDC_SCOPES = ['openid', 'email', 'profile'];

type Key = keyof SourceSettings;
type UrlKey = 'issuer' | 'authorization_url' | 'token_url' | 'userinfo_url';

const REQUIRED_URLS: Record<SourceSettings['type'], UrlKey[]> = {
  oidc: ['issuer'],
  oauth2: ['authorization_url', 'token_url', 'userinfo_url'],
  saml: [],
};
const OAUTH_KEYS: Key[] = ['client_id', 'client_secret', 'client_secret_env', 'scopes'];
const SAML_KEYS: Key[] = ['idp_metadata_file', 'idp_metadata_url', 'attributes'];
const FOREIGN_KEYS: Record<SourceSettings['type'], Key[]> = {
  oidc: ['authorization_url', 'token_url', 'userinfo_url', 'claims', ...SAML_KEYS],
  oauth2: ['issuer', 'trust_upstream_mfa', ...SAML_KEYS],
  saml: ['issuer', 'authorization_url', 'token_url', 'userinfo_url', 'claims', 'trust_upstream_mfa', ...OAUTH_KEYS],
};

const checkUrl = (key: string, value: string) => {
  if (!isSecureOrLoopbackUrl(value, true) || new URL(value).hash)
    throw new ConfigError(`${key} must be an absolute https URL (http only on localhost/127.0.0.1), without a fragment`);
};

/** An OAuth-family source's client: an id, and its secret from one place. */
function checkClient(source: SourceSettings, key: string): void {
  if (source.client_id === undefined) throw new ConfigError(`${key}.client_id is required for a source of type ${source.type}`);
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
}

/** A SAML source's metadata from one place; a file is read and parsed now, so a wrong one stops the start. */
function checkSamlMetadata(source: SourceSettings, key: string): void {
  const { idp_metadata_file: file, idp_metadata_url: url } = source;
  if ((file === undefined) === (url === undefined))
    throw new ConfigError(`${key} needs one of idp_metadata_file and idp_metadata_url for a source of type saml`);
  if (url !== undefined) return checkUrl(`${key}.idp_metadata_url`, url);
  let xml: string;
  try {
    xml = readFileSync(file!, 'utf8');
  } catch (error) {
    throw new ConfigError(`${key}.idp_metadata_file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    parseIdpMetadata(xml);
  } catch (error) {
    throw new ConfigError(`${key}.idp_metadata_file ${file} is not SAML identity provider metadata: ${(error as Error).message}`);
  }
}

export function checkSources(settings: Settings): void {
  const slugs = new Set<string>();
  const domains = new Map<string, string>();
  settings.sources.forEach((source: SourceSettings, index) => {
    const key = `config: sources[${index}]`;
    if (slugs.has(source.slug)) throw new ConfigError(`${key}.slug "${source.slug}" is used by another source`);
    slugs.add(source.slug);
    for (const field of REQUIRED_URLS[source.type]) {
      const value = source[field];
      if (value === undefined) throw new ConfigError(`${key}.${field} is required for a source of type ${source.type}`);
      checkUrl(`${key}.${field}`, value);
    }
    for (const field of FOREIGN_KEYS[source.type]) {
      if (source[field] !== undefined) throw new ConfigError(`${key}.${field} is not used by a source of type ${source.type}; remove it`);
    }
    if (source.type === 'saml') checkSamlMetadata(source, key);
    else checkClient(source, key);
    source.group_prefix ??= `${source.slug}:`;
    source.email_domains!.forEach((domain, i) => {
      const taken = domains.get(domain);
      if (taken) throw new ConfigError(`${key}.email_domains[${i}] "${domain}" goes to source "${taken}" already`);
      domains.set(domain, source.slug);
    });
  });
  settings.applications.forEach((app, index) => {
    // A source's people sign in there: a local account of theirs would outlive their removal upstream.
    app.registration?.email_domains.forEach((domain, i) => {
      const source = domains.get(domain);
      if (source)
        throw new ConfigError(
          `config: applications[${index}].registration.email_domains[${i}] "${domain}" belongs to source "${source}" (its people sign in there); remove it`,
        );
    });
    if (app.sources === undefined || app.sources === '*') return;
    app.sources.forEach((slug, i) => {
      if (!slugs.has(slug))
        throw new ConfigError(
          `config: applications[${index}].sources[${i}] "${slug}" names no source (sources: ${[...slugs].join(', ') || 'none'})`,
        );
    });
  });
}
