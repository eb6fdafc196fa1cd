/**
 * SAML 2.0 sources (docs/federation.md): this service is the service provider, with @node-saml/node-saml. Its entity
 * ID is its metadata URL, `{base_url}/source/saml/{slug}/metadata/`; its assertion consumer service (HTTP-POST) is
 * `{base_url}/source/saml/{slug}/acs/`. node-saml checks the signature (of the response or of the assertion, with
 * the certificates of the IdP's metadata), the Issuer, the audience, the recipient and destination, NotBefore and
 * NotOnOrAfter, and that InResponseTo is present; saml-flow.ts checks that it names the request this browser sent,
 * once.
 */
import { SAML, ValidateInResponseTo, generateServiceProviderMetadata, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { SourceSettings } from '../settings/schema.js';
import type { IdpMetadata } from '../saml-metadata.js';
import type { UpstreamIdentity } from '../domain/source-links.js';
import { EMAIL } from '../interactions/submit-email.js';
import { groupsAt } from './identity.js';
import { STATE_SECONDS } from './start.js';

export const acsPath = (slug: string) => `/source/saml/${slug}/acs/`;
export const metadataPath = (slug: string) => `/source/saml/${slug}/metadata/`;
export const spEntityId = (baseUrl: string, slug: string) => `${baseUrl}${metadataPath(slug)}`;

/** Clocks of the IdP and this service may differ by this much. */
const CLOCK_SKEW_MS = 60_000;

/** Where the common identity providers put the address and the name, tried in order unless `attributes` says. */
const DEFAULT_ATTRIBUTES = {
  email: ['email', 'mail', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3'],
  name: ['name', 'displayName', 'http://schemas.microsoft.com/identity/claims/displayname', 'urn:oid:2.16.840.1.113730.3.1.241'],
};

export function serviceProvider(source: SourceSettings, baseUrl: string, idp: IdpMetadata, cacheProvider: CacheProvider): SAML {
  const entityId = spEntityId(baseUrl, source.slug);
  return new SAML({
    callbackUrl: `${baseUrl}${acsPath(source.slug)}`,
    entryPoint: idp.ssoUrl,
    issuer: entityId,
    audience: entityId,
    idpIssuer: idp.entityId,
    idpCert: idp.certs,
    // A signature is required either way: on the whole response, or on the assertion (node-saml refuses neither).
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: STATE_SECONDS * 1000,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    identifierFormat: null, // the IdP's choice; a transient NameID is refused below
    disableRequestedAuthnContext: true, // any way of signing in there, second factors included
    signatureAlgorithm: 'sha256',
    cacheProvider,
  });
}

/** This service provider's metadata, for the IdP's administrator (or its metadata URL field). */
export function serviceProviderMetadata(source: SourceSettings, baseUrl: string): string {
  return generateServiceProviderMetadata({
    issuer: spEntityId(baseUrl, source.slug),
    callbackUrl: `${baseUrl}${acsPath(source.slug)}`,
    identifierFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
    wantAssertionsSigned: true,
  });
}

const first = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;

/** Who the verified assertion says the person is. Throws on a NameID that cannot name anyone twice. */
export function samlIdentity(source: SourceSettings, profile: Profile): UpstreamIdentity {
  if (!profile.nameID || profile.nameID.length > 255) throw new Error('the assertion names no usable subject (NameID)');
  if (profile.nameIDFormat?.endsWith(':transient'))
    throw new Error('the NameID is transient: it names nobody twice; have the identity provider send a persistent NameID');
  const attributes = (profile.attributes as Record<string, unknown> | undefined) ?? {};
  const pick = (names: readonly string[]) => names.map((name) => first(attributes[name])).find((value) => value !== undefined);
  const email = pick(source.attributes?.email ? [source.attributes.email] : DEFAULT_ATTRIBUTES.email)?.trim() ?? '';
  const name = pick(source.attributes?.name ? [source.attributes.name] : DEFAULT_ATTRIBUTES.name)?.trim() ?? '';
  const verified = source.attributes?.email_verified ? first(attributes[source.attributes.email_verified]) : undefined;
  // The groups attribute by its whole name: SAML names are often URIs, full of dots.
  const groups = source.groups_claim ? groupsAt({ groups: attributes[source.groups_claim] }, 'groups') : undefined;
  return {
    source: source.slug,
    subject: profile.nameID,
    ...(EMAIL.test(email) && email.length <= 254 ? { email } : {}),
    emailVerified: verified?.toLowerCase() === 'true',
    ...(name ? { name } : {}),
    ...(groups ? { groups } : {}),
  };
}
