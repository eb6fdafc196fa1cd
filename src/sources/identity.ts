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

/**
 * The most upstream groups a sign-in takes: they travel to the sign-in page in a sealed cookie (4 KB at most). A
 * longer list is not synced at all, rather than cut: a cut list would take people out of the groups left off.
 */
const GROUPS_LIMIT = 50;
const GROUPS_CHARACTERS = 2000;
const GROUP_NAME_LIMIT = 150;

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;

/**
 * The upstream's group names at the claim: strings, trimmed, each once. Undefined (no sync) when the claim is
 * absent or not a list of names, or when the list is longer than a sign-in carries.
 */
export function groupsAt(claims: unknown, path: string | undefined): string[] | undefined {
  if (!path) return undefined;
  const value = atPath(claims, path);
  const names = typeof value === 'string' ? [value] : strings(value);
  if (!names) return undefined;
  const kept = [...new Set(names.map((name) => name.trim()).filter((name) => name && name.length <= GROUP_NAME_LIMIT))];
  if (kept.length > GROUPS_LIMIT || kept.join('').length > GROUPS_CHARACTERS) return undefined;
  return kept;
}

interface Claims {
  sub?: unknown;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  amr?: unknown;
  acr?: unknown;
}

/** The identity from claims named the OpenID way; throws when there is no usable subject. */
export function identityFrom(source: string, claims: Claims, groups?: string[]): UpstreamIdentity {
  const { sub } = claims;
  const subject = typeof sub === 'string' ? sub : typeof sub === 'number' && Number.isSafeInteger(sub) ? String(sub) : '';
  if (!subject || subject.length > 255) throw new Error('the upstream named no usable subject');
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  const name = typeof claims.name === 'string' ? claims.name.trim() : '';
  const amr = strings(claims.amr);
  return {
    source,
    subject,
    ...(EMAIL.test(email) && email.length <= 254 ? { email } : {}),
    // Only the boolean true: a string "true" or a missing claim is not the upstream vouching for the address.
    emailVerified: claims.email_verified === true,
    ...(name ? { name } : {}),
    ...(groups ? { groups } : {}),
    ...(amr ? { amr } : {}),
    ...(typeof claims.acr === 'string' ? { acr: claims.acr } : {}),
  };
}

export async function upstreamIdentity(
  source: SourceSettings,
  config: client.Configuration,
  tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
): Promise<UpstreamIdentity> {
  if (source.type === 'oidc') {
    const claims = tokens.claims()!; // an ID token is required of oidc sources (the grant refuses a response without one)
    const incomplete =
      claims.email === undefined ||
      claims.name === undefined ||
      (source.groups_claim !== undefined && atPath(claims, source.groups_claim) === undefined);
    const userinfo =
      incomplete && config.serverMetadata().userinfo_endpoint
        ? await client.fetchUserInfo(config, tokens.access_token, claims.sub) // the same subject, or it throws
        : {};
    // The ID token wins where both say something (it is signed); amr and acr come from it alone.
    const merged = { ...userinfo, ...claims };
    return identityFrom(source.slug, { ...merged, amr: claims.amr, acr: claims.acr }, groupsAt(merged, source.groups_claim));
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
  return identityFrom(
    source.slug,
    {
      sub: atPath(body, paths.sub),
      email: atPath(body, paths.email),
      email_verified: atPath(body, paths.email_verified),
      name: atPath(body, paths.name),
    },
    groupsAt(body, source.groups_claim),
  );
}
