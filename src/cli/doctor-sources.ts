/**
 * `idp doctor`'s check of each upstream identity provider (docs/federation.md): an oidc source's discovery document
 * is read as a sign-in would read it (openid-client: the issuer in the document must be the configured one), and
 * must offer the algorithm the source pins; an oauth2 source's authorization URL must answer at all; a saml source's
 * identity provider metadata must read, its signing certificates must not have expired (a warning 30 days before).
 * Each line also names what to register upstream (the redirect URI; for SAML this service provider's metadata URL).
 */
import { X509Certificate } from 'node:crypto';
import * as client from 'openid-client';
import type { Settings, SourceSettings } from '../settings/schema.js';
import { callbackPath } from '../sources/upstreams.js';
import { spEntityId } from '../sources/saml.js';
import { readIdpMetadata, type IdpMetadata } from '../saml-metadata.js';
import { fail, NETWORK_TIMEOUT_MS, ok, warn, type Finding } from './findings.js';

/** The deepest cause's code (ECONNREFUSED, ENOTFOUND…): openid-client wraps fetch's error, which wraps the socket's. */
function why(error: unknown): string {
  const { name, message } = error as Error;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${NETWORK_TIMEOUT_MS / 1000} s`;
  for (let at = error as { cause?: unknown; code?: unknown } | undefined; at; at = at.cause as typeof at)
    if (typeof at.code === 'string' && /^E[A-Z]+$/.test(at.code)) return at.code;
  return message.split('\n')[0]!;
}

async function checkOidc(source: SourceSettings, register: string): Promise<Finding> {
  const check = `source ${source.slug}`;
  let metadata: client.ServerMetadata;
  try {
    const insecure = new URL(source.issuer!).protocol === 'http:';
    const config = await client.discovery(new URL(source.issuer!), source.client_id!, source.client_secret, undefined, {
      timeout: NETWORK_TIMEOUT_MS / 1000,
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
    });
    metadata = config.serverMetadata();
  } catch (error) {
    return fail(
      check,
      `the discovery document of ${source.issuer} cannot be read (${why(error)}): nobody can sign in through ${source.name}`,
    );
  }
  const algs = metadata.id_token_signing_alg_values_supported;
  const alg = source.id_token_signed_response_alg ?? 'RS256';
  if (algs && !algs.includes(alg))
    return warn(
      check,
      `${source.issuer} does not offer ${alg} for ID tokens (it offers ${algs.join(', ')}): set id_token_signed_response_alg`,
    );
  return ok(check, `discovery at ${source.issuer} read (issuer matches, ${alg} offered); register ${register} there`);
}

async function checkOauth2(source: SourceSettings, register: string): Promise<Finding> {
  const check = `source ${source.slug}`;
  try {
    const response = await fetch(source.authorization_url!, { redirect: 'manual', signal: AbortSignal.timeout(NETWORK_TIMEOUT_MS) });
    await response.body?.cancel();
    return ok(check, `${source.authorization_url} answers (${response.status}); register ${register} there`);
  } catch (error) {
    return fail(check, `${source.authorization_url} does not answer (${why(error)}): nobody can sign in through ${source.name}`);
  }
}

const WARN_BEFORE_MS = 30 * 86_400_000;

async function checkSaml(source: SourceSettings, register: string): Promise<Finding> {
  const check = `source ${source.slug}`;
  const where = source.idp_metadata_file ?? source.idp_metadata_url;
  let metadata: IdpMetadata;
  try {
    metadata = await readIdpMetadata(source, NETWORK_TIMEOUT_MS);
  } catch (error) {
    return fail(
      check,
      `the identity provider metadata at ${where} cannot be read (${why(error)}): nobody can sign in through ${source.name}`,
    );
  }
  const ends = metadata.certs.map((cert) => new Date(new X509Certificate(Buffer.from(cert, 'base64')).validTo).getTime());
  const last = Math.max(...ends);
  if (last < Date.now())
    return fail(
      check,
      `every signing certificate in ${where} has expired (${new Date(last).toISOString().slice(0, 10)}): update the metadata`,
    );
  const found = `metadata of ${metadata.entityId} read (sign-on at ${metadata.ssoUrl})`;
  if (last - Date.now() < WARN_BEFORE_MS)
    return warn(
      check,
      `${found}; its signing certificate expires on ${new Date(last).toISOString().slice(0, 10)}: update the metadata once it rotates`,
    );
  return ok(check, `${found}; give it this service provider's metadata, ${register}`);
}

export function checkSources(settings: Settings): Promise<Finding[]> {
  const base = settings.issuer.base_url;
  return Promise.all(
    settings.sources.map((source) => {
      if (source.type === 'saml') return checkSaml(source, spEntityId(base, source.slug));
      const register = `${base}${callbackPath(source.slug)}`;
      return source.type === 'oidc' ? checkOidc(source, register) : checkOauth2(source, register);
    }),
  );
}
