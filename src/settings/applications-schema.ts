/**
 * The `applications:` list of the configuration: the relying parties, each with its own issuer. Its own file, as
 * the longest key; src/settings/schema.ts puts it in place.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { int } from './schema-parts.js';
import { DEFAULT_SIGNING_ALG, SIGNING_ALGS } from './signing-algorithms.js';

export const applicationsSchema = {
  type: 'array',
  description: 'Relying parties allowed to sign users in (OpenID Connect clients).',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['slug', 'name', 'client_id'],
    properties: {
      slug: {
        type: 'string',
        pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
        description: 'Lowercase letters, digits and dashes; part of the issuer URL.',
      },
      name: { type: 'string', minLength: 1, description: 'Shown on the sign-in pages.' },
      client_id: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$', description: 'OAuth client_id (printable ASCII, no spaces).' },
      client_type: {
        type: 'string',
        enum: ['confidential', 'public'],
        default: 'confidential',
        description:
          'confidential: a server that keeps a secret (client_secret required). public: a single-page, mobile, desktop or command-line app that cannot (no secret; PKCE as always; native redirect URIs allowed).',
      },
      client_secret: {
        type: 'string',
        pattern: '^.{16,}$',
        description: 'Client secret (at least 16 characters; confidential applications only).',
      },
      client_secret_env: {
        type: 'string',
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        description: 'Name of an environment variable holding the client secret.',
      },
      grant_types: {
        type: 'array',
        minItems: 1,
        default: ['authorization_code', 'refresh_token'],
        items: {
          type: 'string',
          enum: ['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'],
        },
        description:
          'Grants the application may use; client_credentials (a machine client) for confidential applications only. With refresh_token, every code exchange brings a refresh token, and the application may ask for (and is granted) offline_access. urn:ietf:params:oauth:grant-type:device_code (RFC 8628, public or confidential): a device without a browser signs a person in through {base_url}/device/ (device_flow).',
      },
      application_type: {
        type: 'string',
        enum: ['web', 'native'],
        description:
          'web: a server or a browser app; redirect URIs match exactly, and a signed-in person gets a code without any page (prompt=none: silent renewal). native (public applications only, RFC 8252): a mobile, desktop or command-line app; a loopback redirect matches on any port, private-use schemes are allowed, and prompt=none is refused (the engine wants an interaction each time). Default: native for a public application with a private-use or http://127.0.0.1 / http://[::1] redirect URI, else web; set web for a single-page app served on a loopback address.',
      },
      redirect_uris: {
        type: 'array',
        default: [],
        items: { type: 'string' },
        description:
          'Registered callback URLs, matched exactly (required with authorization_code). Public native applications (application_type) may also use a private-use scheme (com.example.app:/cb), and their http://127.0.0.1 or http://[::1] redirects match with any port (RFC 8252).',
      },
      allowed_origins: {
        type: 'array',
        items: { type: 'string' },
        description:
          'Browser origins allowed to call the token, UserInfo, JWKS, discovery, introspection and revocation endpoints (CORS). Default: the origins of the https/http redirect URIs.',
      },
      api_scopes: {
        type: 'array',
        default: [],
        items: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_:./-]{0,127}$' },
        description: 'Scopes of your own APIs the application may request (e.g. reports:read); carried by its access tokens.',
      },
      resource_server: {
        type: 'boolean',
        default: false,
        description: 'An API that checks tokens issued to other applications: it may introspect them.',
      },
      post_logout_redirect_uris: {
        type: 'array',
        default: [],
        items: { type: 'string' },
        description: 'Where end-session may send the browser.',
      },
      backchannel_logout_uri: { type: 'string', description: 'Backchannel logout receiver.' },
      scopes: {
        type: 'array',
        default: ['openid', 'profile', 'email'],
        items: { type: 'string', enum: ['openid', 'profile', 'email'] },
        description: 'Scopes the application may request.',
      },
      access_group: {
        type: 'string',
        minLength: 1,
        description: 'Only members of this group may sign in (created at start when missing).',
      },
      require_mfa: { type: 'boolean', default: false, description: 'Require a second factor.' },
      registration: {
        type: 'object',
        additionalProperties: false,
        default: { enabled: false, email_domains: [], groups: [] },
        description:
          'Self-registration: "Create an account" on this application\'s sign-in page. The address is confirmed by a mailed code before the account exists (docs/credentials.md).',
        properties: {
          enabled: { type: 'boolean', default: false, description: 'Offer "Create an account" (default: off).' },
          email_domains: {
            type: 'array',
            default: [],
            items: { type: 'string', pattern: '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$' },
            description:
              'Only addresses in these domains may register (lower-case, exact). Empty: any address. An address in a domain a source claims (sources[].email_domains) never registers: those people sign in there; listing such a domain stops the start.',
          },
          groups: {
            type: 'array',
            default: [],
            items: { type: 'string', minLength: 1, maxLength: 150 },
            description:
              'Groups (by name) a new account joins; created when missing. Include access_group for an application that has one.',
          },
        },
      },
      sources: {
        anyOf: [
          { type: 'array', items: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' } },
          { type: 'string', enum: ['*'] },
        ],
        description:
          'a list of source slugs, or "*" for every source: the upstream identity providers offered on this application\'s sign-in page (default: none).',
      },
      id_token_signed_response_alg: {
        type: 'string',
        enum: SIGNING_ALGS,
        default: DEFAULT_SIGNING_ALG,
        description:
          'How its ID tokens and backchannel logout tokens are signed. RS256 (the default, and what every relying party library verifies); ES256 (ECDSA P-256) or EdDSA (Ed25519) sign many times faster where the application can verify them. The service keeps a key for each algorithm in use and rotates them together (docs/operating.md).',
      },
      webhook: {
        type: 'object',
        additionalProperties: false,
        required: ['url'],
        description: 'Webhook receiver of this application.',
        properties: {
          url: {
            type: 'string',
            pattern: '^https?://',
            description: 'Receiver URL (https; http only on loopback with webhooks.allow_insecure_loopback).',
          },
          secret: {
            type: 'string',
            pattern: '^.{16,}$',
            description:
              'HMAC-SHA256 signing secret (`idp secrets generate`); its UTF-8 bytes are the key of both X-Service-Signature and webhook-signature.',
          },
          secret_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Environment variable holding the secret.' },
          previous_secret: {
            type: 'string',
            pattern: '^.{16,}$',
            description:
              'During a rotation: the secret being replaced. webhook-signature then carries a signature with each secret; X-Service-Signature is signed with `secret` only. Remove it once the receiver uses the new secret.',
          },
          previous_secret_env: {
            type: 'string',
            pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
            description: 'Environment variable holding the previous secret.',
          },
          events: {
            type: 'array',
            items: { type: 'string', enum: ['group_membership_change', 'user_updated', 'user_deactivated'] },
            description: 'Only these event types (default: all).',
          },
        },
      },
      provisioning: {
        type: 'object',
        additionalProperties: false,
        description: 'Outbound provisioning of the application (docs/scim.md).',
        properties: {
          scim: {
            type: 'object',
            additionalProperties: false,
            required: ['url', 'token_env'],
            description:
              'Push the users who may use the application (and their groups) to its SCIM 2.0 endpoint: created, updated, deactivated, memberships; through the outbox, like webhooks.',
            properties: {
              url: {
                type: 'string',
                pattern: '^https?://',
                description:
                  "The application's SCIM base URL, e.g. https://app.example.com/scim/v2 (https; http only on loopback with webhooks.allow_insecure_loopback).",
              },
              token_env: {
                type: 'string',
                pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
                description: "Environment variable holding the bearer token of the application's SCIM endpoint.",
              },
              scope: {
                type: 'string',
                enum: ['access_group', 'all'],
                default: 'access_group',
                description: 'Who is pushed: the members of the access group (the default; needs access_group), or every user.',
              },
            },
          },
        },
      },
      tokens: {
        type: 'object',
        default: {},
        additionalProperties: false,
        description: 'Per-application token lifetimes in seconds (default: the top-level tokens).',
        properties: {
          access_token_ttl: int(1, 'Access token lifetime.'),
          id_token_ttl: int(1, 'ID token lifetime.'),
          refresh_token_ttl: int(1, 'Refresh token lifetime.'),
        },
      },
    },
  },
} as const satisfies JSONSchema;
