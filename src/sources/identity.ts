/**
 * Who the upstream says the person is, from its answer at the callback. oidc: the verified ID token's claims
 * (openid-client checked issuer, audience, expiry, nonce and signature), completed from UserInfo when the ID token
 * leaves out the address or the name (the ID token wins where both say something: it is signed). oauth2: the
 * userinfo URL's JSON, read through the configured claim mapping (dotted paths).
 */
import * as client from 'openid-client';
import type { SourceSettings } from '../settings/schema.js';
import type { UpstreamIdentity } from '../domain/source-links.js';
import { EMAIL } from '../interactions/submit-email.js';

type Json = Record<string, unknown>;

/** The claims an oauth2 source reads, and where (dotted paths), unless its `claims` says otherwise. */
const DEFAULT_CLAIMS = { sub: 'sub', email: 'email', email_verified: 'email_verified', name: 'name' };

/** The value at a dotted path (`data.user.id`), or undefined. */
export function atPath(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((at, key) => (at && typeof at === 'object' && !Array.isArray(at) ? (at as Json)[key] : undefined), value);
}

/** The identity from claims named the OpenID way; throws when there is no usable subject. */
export function identityFrom(
  source: string,
  claims: { sub?: unknown; email?: unknown; email_verified?: unknown; name?: unknown },
): UpstreamIdentity {
  const { sub } = claims;
  const subject = typeof sub === 'string' ? sub : typeof sub === 'number' && Number.isSafeInteger(sub) ? String(sub) : '';
  if (!subject || subject.length > 255) throw new Error('the upstream named no usable subject');
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  const name = typeof claims.name === 'string' ? claims.name.trim() : '';
  return {
    source,
    subject,
    ...(EMAIL.test(email) && email.length <= 254 ? { email } : {}),
    // Only the boolean true: a string "true" or a missing claim is not the upstream vouching for the address.
    emailVerified: claims.email_verified === true,
    ...(name ? { name } : {}),
  };
}

export async function upstreamIdentity(
  source: SourceSettings,
  config: client.Configuration,
  tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
): Promise<UpstreamIdentity> {
  if (source.type === 'oidc') {
    const claims = tokens.claims()!; // an ID token is required of oidc sources (the grant refuses a response without one)
    const incomplete = claims.email === undefined || claims.name === undefined;
    const userinfo =
      incomplete && config.serverMetadata().userinfo_endpoint
        ? await client.fetchUserInfo(config, tokens.access_token, claims.sub) // the same subject, or it throws
        : {};
    return identityFrom(source.slug, { ...userinfo, ...claims });
  }
  const response = await client.fetchProtectedResource(
    config,
    tokens.access_token,
    new URL(source.userinfo_url!),
    'GET',
    undefined,
    new Headers({ accept: 'application/json' }),
  );
  if (!response.ok) throw new Error(`the userinfo URL answered ${response.status}`);
  const body = (await response.json()) as unknown;
  const paths = { ...DEFAULT_CLAIMS, ...source.claims };
  return identityFrom(source.slug, {
    sub: atPath(body, paths.sub),
    email: atPath(body, paths.email),
    email_verified: atPath(body, paths.email_verified),
    name: atPath(body, paths.name),
  });
}
