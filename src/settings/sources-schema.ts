/**
 * The `sources:` list of the configuration: upstream identity providers (docs/federation.md). Its own file, as the
 * key with the most rules of its own; src/settings/schema.ts puts it in place.
 */
export const sourcesSchema = {
  type: 'array',
  description:
    'Upstream identity providers people may sign in with ("Continue with {name}" on the sign-in page of the applications that list them; docs/federation.md).',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['slug', 'type', 'name'],
    properties: {
      slug: {
        type: 'string',
        pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
        description:
          'Lowercase letters, digits and dashes; part of the redirect URI to register upstream, {base_url}/source/oauth/callback/{slug}/, and the key of the links it makes (do not rename a source in use).',
      },
      type: {
        type: 'string',
        enum: ['oidc', 'oauth2', 'saml'],
        description:
          'oidc: an OpenID Connect provider (discovery from issuer, ID token verified). oauth2: a plain OAuth 2.0 provider (GitHub-style): authorization_url, token_url, userinfo_url and claims. saml: a SAML 2.0 identity provider (idp_metadata_file or idp_metadata_url; this service its service provider at {base_url}/source/saml/{slug}/metadata/).',
      },
      name: { type: 'string', minLength: 1, maxLength: 64, description: 'Shown on the button: "Continue with {name}".' },
      issuer: {
        type: 'string',
        pattern: '^https?://',
        description:
          'oidc: the issuer identifier; its /.well-known/openid-configuration is read at the first use and kept for an hour (https; http only on loopback).',
      },
      authorization_url: { type: 'string', pattern: '^https?://', description: 'oauth2: the authorization endpoint.' },
      token_url: { type: 'string', pattern: '^https?://', description: 'oauth2: the token endpoint.' },
      userinfo_url: {
        type: 'string',
        pattern: '^https?://',
        description: 'oauth2: the endpoint that answers JSON about the person for the access token (GitHub: https://api.github.com/user).',
      },
      client_id: {
        type: 'string',
        pattern: '^[\\x21-\\x7e]{1,255}$',
        description: 'oidc, oauth2 (required): the client_id this service has at the upstream.',
      },
      idp_metadata_file: {
        type: 'string',
        minLength: 1,
        description:
          "saml: a file holding the identity provider's SAML metadata (entityID, the HTTP-Redirect single sign-on URL, its signing certificate); read at start.",
      },
      idp_metadata_url: {
        type: 'string',
        pattern: '^https?://',
        description:
          'saml: where the identity provider publishes its metadata (https; http only on loopback); read at the first sign-in and kept for an hour, so a rotated certificate is picked up.',
      },
      attributes: {
        type: 'object',
        additionalProperties: false,
        description:
          'saml: the attribute names (as the identity provider sends them, often URIs) of the address, the name and whether the address is verified. The subject is the NameID. Defaults: the common names of Entra ID, Okta, Google and ADFS.',
        properties: {
          email: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$', description: 'The e-mail address.' },
          name: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$', description: 'The display name.' },
          email_verified: {
            type: 'string',
            pattern: '^[\\x21-\\x7e]{1,255}$',
            description:
              'An attribute whose value "true" says the identity provider verified the address (for trust_email). None by default.',
          },
        },
      },
      client_secret: { type: 'string', minLength: 1, description: 'The client secret this service has at the upstream.' },
      client_secret_env: {
        type: 'string',
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        description: 'Name of an environment variable holding the client secret.',
      },
      token_endpoint_auth_method: {
        type: 'string',
        enum: ['client_secret_basic', 'client_secret_post'],
        default: 'client_secret_basic',
        description: 'How the secret is sent to the token endpoint (HTTP Basic, or in the form body).',
      },
      scopes: {
        type: 'array',
        items: { type: 'string', pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' },
        description: 'Scopes asked for. Default: openid email profile (oidc); none (oauth2; GitHub wants read:user user:email).',
      },
      id_token_signed_response_alg: {
        type: 'string',
        enum: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'],
        default: 'RS256',
        description: 'oidc: the only algorithm an ID token of this upstream may be signed with (checked against its JWKS).',
      },
      claims: {
        type: 'object',
        additionalProperties: false,
        description:
          "oauth2: where the person's claims are in the userinfo answer, as dotted paths (e.g. sub: id, email: email, name: name). Default: the OpenID names.",
        properties: {
          sub: {
            type: 'string',
            pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$',
            description: 'The stable identifier (required upstream).',
          },
          email: { type: 'string', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$', description: 'The e-mail address.' },
          email_verified: {
            type: 'string',
            pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$',
            description: 'Whether the upstream verified the address (true only when the value is the boolean true).',
          },
          name: { type: 'string', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$', description: 'The display name.' },
        },
      },
      provision: {
        type: 'boolean',
        default: true,
        description:
          'Create an account at the first sign-in of someone whose e-mail address has none here (just in time). false: only people who have an account (or a link) may come through this source.',
      },
      groups: {
        type: 'array',
        default: [],
        items: { type: 'string', minLength: 1, maxLength: 150 },
        description: 'Groups (by name) an account created by this source joins; created at start when missing.',
      },
      email_domains: {
        type: 'array',
        default: [],
        items: { type: 'string', pattern: '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$' },
        description:
          'Home-realm discovery: an address typed on the sign-in page in one of these domains (lower-case, exact: corp.example does not cover eu.corp.example) goes straight to this source, the address passed on as login_hint, on the applications that offer it.',
      },
      trust_upstream_mfa: {
        type: 'boolean',
        description:
          "oidc: when the upstream's ID token shows a second factor (amr mfa, or two factors such as pwd and otp; acr phr or phrh), take it as this service's: no second-factor page, and require_mfa is met. Default false: people with a second factor here are asked for it after the upstream.",
      },
      groups_claim: {
        type: 'string',
        pattern: '^[A-Za-z0-9_:/-]+(\\.[A-Za-z0-9_:/-]+)*$',
        description:
          "The claim (a dotted path in the ID token or UserInfo, or in the oauth2 userinfo answer) that lists the person's upstream groups; at each sign-in through this source the account's groups named {group_prefix}{name} are made to match (joined, left, created when missing), with the events and audit of the API.",
      },
      group_prefix: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description:
          'The prefix of the groups groups_claim keeps in step (default "{slug}:"); groups without it are never touched by the sync.',
      },
      trust_email: {
        type: 'boolean',
        default: false,
        description:
          'Link an existing account with the same e-mail address without asking for its password, but only when the upstream says the address is verified (email_verified true). Only for upstreams that verify every address they assert (docs/federation.md).',
      },
    },
  },
} as const;
