/**
 * The configured upstream identity providers as relying-party configurations of openid-client (the RP library): an
 * oidc source's comes from its discovery document, read at the first use and kept for an hour (a failed read is
 * not kept: the next sign-in asks again), with the ID token's signature checked against the upstream's JWKS
 * (openid-client keeps the key set with the configuration); an oauth2 source's is built from its URLs. A saml
 * source's identity provider metadata is read from its file once, or from its URL like a discovery document.
 */
import * as client from 'openid-client';
import type { ApplicationSettings, Settings, SourceSettings } from '../settings/schema.js';
import { readIdpMetadata, type IdpMetadata } from '../saml-metadata.js';
import { acsPath } from './saml.js';

/** How long a discovery document is kept. */
const DISCOVERY_TTL_MS = 3600_000;
/** Every request to an upstream (discovery, JWKS, token, UserInfo) must answer within this many seconds. */
const TIMEOUT_SECONDS = 10;

export interface Upstream {
  source: SourceSettings;
  /** What the operator registers upstream: `{base_url}/source/oauth/callback/{slug}/` (saml: the ACS URL). */
  redirectUri: string;
  /** oidc and oauth2 sources. */
  configuration(): Promise<client.Configuration>;
  /** saml sources. */
  samlMetadata(): Promise<IdpMetadata>;
}

export type Upstreams = Map<string, Upstream>;

export const callbackPath = (slug: string) => `/source/oauth/callback/${slug}/`;

/** Plain http reaches only loopback upstreams (the configuration allows no other): tests and local development. */
function allowingLoopbackHttp(url: string, config: client.Configuration): void {
  if (new URL(url).protocol === 'http:') client.allowInsecureRequests(config);
}

function clientAuth(source: SourceSettings): client.ClientAuth {
  return source.token_endpoint_auth_method === 'client_secret_post'
    ? client.ClientSecretPost(source.client_secret!)
    : client.ClientSecretBasic(source.client_secret!);
}

function discovered(source: SourceSettings): () => Promise<client.Configuration> {
  let kept: { at: number; config: Promise<client.Configuration> } | undefined;
  return () => {
    if (kept && Date.now() - kept.at < DISCOVERY_TTL_MS) return kept.config;
    const issuer = source.issuer!;
    const config = client.discovery(
      new URL(issuer),
      source.client_id!,
      { client_secret: source.client_secret!, id_token_signed_response_alg: source.id_token_signed_response_alg },
      clientAuth(source),
      {
        timeout: TIMEOUT_SECONDS,
        // openid-client looks for allowInsecureRequests itself in this list (for the discovery request).
        execute: [...(new URL(issuer).protocol === 'http:' ? [client.allowInsecureRequests] : []), client.enableNonRepudiationChecks],
      },
    );
    const entry = (kept = { at: Date.now(), config });
    config.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return config;
  };
}

function configured(source: SourceSettings): () => Promise<client.Configuration> {
  const server: client.ServerMetadata = {
    // An oauth2 upstream has no issuer identifier; its origin stands in (RFC 9207's iss, when it sends one, must match).
    issuer: new URL(source.authorization_url!).origin,
    authorization_endpoint: source.authorization_url!,
    token_endpoint: source.token_url!,
    userinfo_endpoint: source.userinfo_url!,
  };
  const config = new client.Configuration(server, source.client_id!, { client_secret: source.client_secret! }, clientAuth(source));
  config.timeout = TIMEOUT_SECONDS;
  for (const url of [source.authorization_url!, source.token_url!, source.userinfo_url!]) allowingLoopbackHttp(url, config);
  return async () => config;
}

/** A file's metadata is read once (validation read it already); a URL's like a discovery document: an hour. */
function samlMetadata(source: SourceSettings): () => Promise<IdpMetadata> {
  if (source.idp_metadata_file) {
    const metadata = readIdpMetadata(source, TIMEOUT_SECONDS * 1000);
    return () => metadata;
  }
  let kept: { at: number; metadata: Promise<IdpMetadata> } | undefined;
  return () => {
    if (kept && Date.now() - kept.at < DISCOVERY_TTL_MS) return kept.metadata;
    const metadata = readIdpMetadata(source, TIMEOUT_SECONDS * 1000);
    const entry = (kept = { at: Date.now(), metadata });
    metadata.catch(() => {
      if (kept === entry) kept = undefined;
    });
    return metadata;
  };
}

const notFor = (what: string) => () => Promise.reject(new Error(`a ${what} source has no such configuration`));

export function upstreamsFrom(settings: Settings): Upstreams {
  const upstreams: Upstreams = new Map();
  const base = settings.issuer.base_url;
  for (const source of settings.sources) {
    const saml = source.type === 'saml';
    upstreams.set(source.slug, {
      source,
      redirectUri: `${base}${saml ? acsPath(source.slug) : callbackPath(source.slug)}`,
      configuration: saml ? notFor('saml') : source.type === 'oidc' ? discovered(source) : configured(source),
      samlMetadata: saml ? samlMetadata(source) : notFor(source.type),
    });
  }
  return upstreams;
}

/** The upstreams the application offers on its sign-in page, in configuration order. */
export function offeredBy(app: ApplicationSettings, upstreams: Upstreams): Upstream[] {
  if (app.sources === '*') return [...upstreams.values()];
  return (app.sources ?? []).flatMap((slug) => upstreams.get(slug) ?? []);
}
