/** sources[] in the configuration, and applications' `sources`: defaults and the one-line errors of bad entries. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../src/settings/validate.js';
import { parseIdpMetadata } from '../../src/saml-metadata.js';
import { oidcSource, testSettings } from '../helpers/settings.js';
import { atPath, groupsAt, identityFrom } from '../../src/sources/identity.js';
import { upstreamSecondFactor } from '../../src/sources/resume.js';
import type { SourceSettings } from '../../src/settings/schema.js';

const github = (extra: Record<string, unknown> = {}) => ({
  slug: 'github',
  type: 'oauth2',
  name: 'GitHub',
  authorization_url: 'https://github.com/login/oauth/authorize',
  token_url: 'https://github.com/login/oauth/access_token',
  userinfo_url: 'https://api.github.com/user',
  client_id: 'Iv1.abc',
  client_secret: 'github-secret',
  claims: { sub: 'id', email: 'email', name: 'name' },
  ...extra,
});
const app = (extra: Record<string, unknown> = {}) => ({
  slug: 'wiki',
  name: 'Wiki',
  client_id: 'wiki-client',
  client_secret: 'a-long-enough-secret-value',
  redirect_uris: ['https://wiki.example.com/cb'],
  ...extra,
});

const load = (sources: unknown[], applications: unknown[] = []) => testSettings({ sources, applications });

/** A SAML identity provider's metadata in a file (the certificate is not checked when the configuration loads). */
const metadataDir = mkdtempSync(path.join(os.tmpdir(), 'idp-saml-config-'));
const metadataFile = (name: string, xml: string) => {
  const file = path.join(metadataDir, name);
  writeFileSync(file, xml);
  return file;
};
const IDP_METADATA = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.corp.example/saml">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIIB
      AAAA</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:KeyDescriptor use="encryption"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>BBBB</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.corp.example/sso/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.corp.example/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
const saml = (extra: Record<string, unknown> = {}) => ({
  slug: 'adfs',
  type: 'saml',
  name: 'ADFS',
  idp_metadata_file: metadataFile('idp.xml', IDP_METADATA),
  ...extra,
});
afterAll(() => rmSync(metadataDir, { recursive: true, force: true }));

describe('sources configuration', () => {
  test('defaults: no sources; oidc scopes openid email profile, provisioning on, e-mail not trusted; oauth2 no scopes', async () => {
    expect((await testSettings()).sources).toEqual([]);
    const settings = await load(
      [oidcSource(), github()],
      [app({ sources: ['corp'] }), app({ slug: 'all', client_id: 'all', sources: '*' })],
    );
    expect(settings.sources[0]).toMatchObject({
      scopes: ['openid', 'email', 'profile'],
      provision: true,
      trust_email: false,
      groups: [],
      email_domains: [],
      group_prefix: 'corp:',
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    });
    expect(settings.sources[1]!.scopes).toEqual([]);
    expect(settings.applications.map((entry) => entry.sources)).toEqual([['corp'], '*']);
  });

  test('a saml source needs only its metadata; the file is read and parsed at start', async () => {
    const settings = await load([saml()], [app({ sources: ['adfs'] })]);
    expect(settings.sources[0]).toMatchObject({ type: 'saml', group_prefix: 'adfs:' });
    expect(settings.sources[0]!.client_id).toBeUndefined();
    expect(parseIdpMetadata(IDP_METADATA)).toEqual({
      entityId: 'https://idp.corp.example/saml',
      ssoUrl: 'https://idp.corp.example/sso',
      certs: ['MIIBAAAA'],
    });
  });

  test('a secret from the environment', async () => {
    process.env.CORP_SECRET_FOR_TEST = 'from-the-environment';
    const settings = await load([oidcSource({ client_secret: undefined, client_secret_env: 'CORP_SECRET_FOR_TEST' })]);
    expect(settings.sources[0]!.client_secret).toBe('from-the-environment');
  });

  test.each([
    ['an unknown type', [oidcSource({ type: 'saml2' })], [], 'config: sources[0].type must be one of oidc, oauth2, saml (source "corp")'],
    ['a duplicate slug', [oidcSource(), oidcSource({ name: 'Again' })], [], 'config: sources[1].slug "corp" is used by another source'],
    [
      'an oidc source without issuer',
      [oidcSource({ issuer: undefined })],
      [],
      'config: sources[0].issuer is required for a source of type oidc',
    ],
    [
      'an http issuer off loopback',
      [oidcSource({ issuer: 'http://login.corp.example' })],
      [],
      'config: sources[0].issuer must be an absolute https URL',
    ],
    [
      'oauth2 keys on an oidc source',
      [oidcSource({ token_url: 'https://x.example/t' })],
      [],
      'config: sources[0].token_url is not used by a source of type oidc',
    ],
    [
      'an oauth2 source without userinfo_url',
      [github({ userinfo_url: undefined })],
      [],
      'config: sources[0].userinfo_url is required for a source of type oauth2',
    ],
    ['no secret', [oidcSource({ client_secret: undefined })], [], 'config: sources[0].client_secret is required (or client_secret_env)'],
    [
      'both secrets',
      [oidcSource({ client_secret_env: 'X' })],
      [],
      'config: sources[0] sets both client_secret and client_secret_env; keep one',
    ],
    ['oidc scopes without openid', [oidcSource({ scopes: ['email'] })], [], 'config: sources[0].scopes must include openid'],
    [
      'a claim path that is not one',
      [github({ claims: { sub: 'a..b' } })],
      [],
      'config: sources[0].claims.sub must be a claim name, or a dotted path',
    ],
    ['an unknown claim', [github({ claims: { groups: 'teams' } })], [], 'config: sources[0].claims.groups is not a known key'],
    ['an unknown key', [oidcSource({ colour: 'blue' })], [], 'config: sources[0].colour is not a known key'],
    [
      'an oidc source without client_id',
      [oidcSource({ client_id: undefined })],
      [],
      'config: sources[0].client_id is required for a source of type oidc',
    ],
    [
      'a saml source without metadata',
      [saml({ idp_metadata_file: undefined })],
      [],
      'config: sources[0] needs one of idp_metadata_file and idp_metadata_url for a source of type saml',
    ],
    [
      'a saml source with both',
      [saml({ idp_metadata_url: 'https://idp.corp.example/metadata' })],
      [],
      'config: sources[0] needs one of idp_metadata_file and idp_metadata_url',
    ],
    [
      'a metadata file that is not there',
      [saml({ idp_metadata_file: '/nonexistent/idp.xml' })],
      [],
      'config: sources[0].idp_metadata_file /nonexistent/idp.xml cannot be read (ENOENT)',
    ],
    [
      "a service provider's metadata given as the identity provider's",
      [saml({ idp_metadata_file: metadataFile('sp.xml', IDP_METADATA.replaceAll('IDPSSODescriptor', 'SPSSODescriptor')) })],
      [],
      'is not SAML identity provider metadata: no EntityDescriptor with an IDPSSODescriptor',
    ],
    [
      'metadata without a redirect sign-on',
      [
        saml({
          idp_metadata_file: metadataFile(
            'post.xml',
            IDP_METADATA.replace(/<md:SingleSignOnService Binding="[^"]+HTTP-Redirect"[^>]*>/, ''),
          ),
        }),
      ],
      [],
      'no SingleSignOnService for the HTTP-Redirect binding',
    ],
    ['oauth keys on a saml source', [saml({ client_id: 'x' })], [], 'config: sources[0].client_id is not used by a source of type saml'],
    [
      'an http metadata URL off loopback',
      [saml({ idp_metadata_file: undefined, idp_metadata_url: 'http://idp.corp.example/metadata' })],
      [],
      'config: sources[0].idp_metadata_url must be an absolute https URL',
    ],
    [
      'a domain that is not one',
      [oidcSource({ email_domains: ['Corp.Example'] })],
      [],
      'config: sources[0].email_domains[0] must be a lower-case domain name such as corp.example',
    ],
    [
      'a domain two sources claim',
      [oidcSource({ email_domains: ['corp.example'] }), github({ email_domains: ['eu.corp.example', 'corp.example'] })],
      [],
      'config: sources[1].email_domains[1] "corp.example" goes to source "corp" already',
    ],
    [
      'a registration domain a source claims (its people sign in there)',
      [oidcSource({ email_domains: ['corp.example'] })],
      [app({ registration: { enabled: true, email_domains: ['example.com', 'corp.example'] } })],
      'config: applications[0].registration.email_domains[1] "corp.example" belongs to source "corp" (its people sign in there); remove it',
    ],
    [
      'trust_upstream_mfa on an oauth2 source (no amr to trust)',
      [github({ trust_upstream_mfa: true })],
      [],
      'config: sources[0].trust_upstream_mfa is not used by a source of type oauth2',
    ],
    ['an empty group prefix', [oidcSource({ groups_claim: 'groups', group_prefix: '' })], [], 'config: sources[0].group_prefix'],
    [
      'an application naming a missing source',
      [oidcSource()],
      [app({ sources: ['corp', 'okta'] })],
      'config: applications[0].sources[1] "okta" names no source (sources: corp)',
    ],
    [
      'an application with sources of the wrong shape',
      [oidcSource()],
      [app({ sources: 'corp' })],
      'config: applications[0].sources must be a list of source slugs, or "*" for every source (application "wiki")',
    ],
  ])('rejects %s with one line naming the key', async (_case, sources, applications, message) => {
    const error = await load(sources, applications).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('upstream claims', () => {
  test('dotted paths reach into nested answers; anything else is undefined', () => {
    const body = { id: 7, profile: { mail: { primary: 'a@b.example' } }, list: [1] };
    expect(atPath(body, 'id')).toBe(7);
    expect(atPath(body, 'profile.mail.primary')).toBe('a@b.example');
    expect(atPath(body, 'profile.missing.deeper')).toBeUndefined();
    expect(atPath(body, 'list.0')).toBeUndefined();
  });

  test('a subject is a non-empty string or a safe integer; only the boolean true verifies an address; junk addresses are dropped', () => {
    expect(identityFrom('gh', { sub: 42, email: 'a@b.example', email_verified: 'true', name: ' Ada ' })).toEqual({
      source: 'gh',
      subject: '42',
      email: 'a@b.example',
      emailVerified: false,
      name: 'Ada',
    });
    expect(identityFrom('gh', { sub: 's', email: 'not an address', email_verified: true })).toEqual({
      source: 'gh',
      subject: 's',
      emailVerified: true,
    });
    for (const sub of [undefined, '', 1.5, {}, 'x'.repeat(256)]) expect(() => identityFrom('gh', { sub })).toThrow('no usable subject');
  });
});

describe('upstream groups and second factors', () => {
  test('groups: strings trimmed and once each; a single name is a list of one; absent, junk or too long a list is no sync', () => {
    expect(groupsAt({ groups: [' eng ', 'ops', 'eng', 7, ''] }, 'groups')).toEqual(['eng', 'ops']);
    expect(groupsAt({ realm: { roles: 'admin' } }, 'realm.roles')).toEqual(['admin']);
    expect(groupsAt({ groups: [] }, 'groups')).toEqual([]); // an empty list is a list: every prefixed group is left
    expect(groupsAt({}, 'groups')).toBeUndefined();
    expect(groupsAt({ groups: { eng: true } }, 'groups')).toBeUndefined();
    expect(groupsAt({ groups: Array.from({ length: 51 }, (_, i) => `g${i}`) }, 'groups')).toBeUndefined();
    expect(groupsAt({ groups: ['x'.repeat(150), 'y'.repeat(150)] }, 'groups')).toHaveLength(2);
    expect(groupsAt({ groups: ['x'] }, undefined)).toBeUndefined();
  });

  test('a second factor upstream counts only where trusted, and only when the ID token shows one', () => {
    const trusted = { slug: 'corp', trust_upstream_mfa: true } as SourceSettings;
    const id = (amr?: string[], acr?: string) => ({ ...identityFrom('corp', { sub: 's', amr, acr }) });
    expect(upstreamSecondFactor(trusted, id(['pwd', 'mfa']))).toBe(true);
    expect(upstreamSecondFactor(trusted, id(['pwd', 'otp']))).toBe(true);
    expect(upstreamSecondFactor(trusted, id(['pin', 'hwk']))).toBe(true);
    expect(upstreamSecondFactor(trusted, id(undefined, 'phrh'))).toBe(true);
    expect(upstreamSecondFactor(trusted, id(['pwd']))).toBe(false);
    expect(upstreamSecondFactor(trusted, id(['otp', 'sms']))).toBe(false); // two things held, nothing known
    expect(upstreamSecondFactor(trusted, id(undefined, 'urn:corp:loa:1'))).toBe(false);
    expect(upstreamSecondFactor(trusted, id())).toBe(false);
    expect(upstreamSecondFactor({ ...trusted, trust_upstream_mfa: false }, id(['pwd', 'mfa']))).toBe(false);
  });
});
