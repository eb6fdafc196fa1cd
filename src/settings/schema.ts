/**
 * The one configuration schema. node-config merges config/*.yaml, environment variables and NODE_CONFIG;
 * this schema then validates the result. Each key carries its description for docs/configuration.md.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { int, section } from './schema-parts.js';
import { applicationsSchema } from './applications-schema.js';
import { sourcesSchema } from './sources-schema.js';
import { LOCALES } from '../i18n/catalogues.js';

export const settingsSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'issuer',
    'server',
    'database',
    'redis',
    'data_dir',
    'secrets',
    'bootstrap',
    'log',
    'metrics',
    'audit',
    'api',
    'tokens',
    'keys',
    'passwords',
    'webhooks',
    'worker',
    'mail',
    'rate_limits',
    'account',
    'admin',
    'device_flow',
    'landing',
    'invitations',
    'i18n',
    'sources',
    'applications',
  ],
  properties: {
    issuer: section('Public identity of the service.', {
      base_url: {
        type: 'string',
        pattern: '^https?://[^/?#@]+/?$',
        description:
          'Public origin of the service, e.g. https://id.example.com (no path: the service owns its host name). Every URL it emits is built from it, never from the Host or X-Forwarded-Host headers. Outside production, when no file, variable or NODE_CONFIG sets it, it follows the listener: http://localhost:<the port `idp serve` listens on>.',
      },
    }),
    server: section('HTTP listener.', {
      host: { type: 'string', minLength: 1, description: 'Interface to listen on.' },
      port: int(0, 'TCP port (0 = any free port).', 65535),
      trust_proxy: {
        type: 'boolean',
        description:
          'Behind a reverse proxy: take the client address (rate limits, logs) from X-Forwarded-For. URLs always come from issuer.base_url.',
      },
      proxy_hops: int(
        1,
        "With trust_proxy: how many proxies append to X-Forwarded-For. The client address is the entry that many from the right; entries further left are the client's own and never trusted.",
        10,
      ),
      shutdown_grace_seconds: int(
        0,
        'On SIGTERM/SIGINT: new connections are refused at once; requests in flight get this long to finish before their connections are closed.',
        300,
      ),
    }),
    database: section('System of record.', {
      url: {
        type: 'string',
        pattern: '^$|^postgres(ql)?://',
        description:
          "PostgreSQL URL (postgres://user:pass@host:5432/db). A server on the same machine is best reached over its Unix socket, `postgres://user@localhost:5432/db?host=/var/run/postgresql` (the socket's directory): it saves each statement a TCP round through the kernel. Empty runs the embedded PGlite database in <data_dir>/db.",
      },
      pool_size: int(1, 'PostgreSQL connections per process.', 200),
      cache_entries: int(
        0,
        'Rows (access tokens, grants, users with their groups) each serving process keeps in memory for the token paths. The database announces every change to them (LISTEN/NOTIFY), so revocations and deactivations still count at once; while those notices cannot arrive the cache is off. 0 turns it off.',
        1000000,
      ),
    }),
    redis: section('Queues and rate-limit counters.', {
      url: { type: 'string', pattern: '^$|^rediss?://', description: 'Redis URL.' },
      prefix: {
        type: 'string',
        pattern: '^[A-Za-z0-9_:-]{1,64}$',
        description: 'Prefix of every queue key, so several deployments can share one Redis.',
      },
    }),
    data_dir: { type: 'string', minLength: 1, description: 'Folder for the embedded database, the generated secret key and local mail.' },
    secrets: section('Encryption of secrets at rest.', {
      key: {
        type: 'string',
        pattern: '^$|^.{32,}$',
        description:
          'At least 32 characters (e.g. `openssl rand -hex 32`). Required in production; elsewhere an empty key is generated into <data_dir>/secret.key.',
      },
    }),
    bootstrap: section('First start.', {
      token: {
        type: 'string',
        pattern: '^$|^.{32,}$',
        description:
          'When set (at least 32 characters) and the database has no API token yet, it becomes an API token with every scope. Otherwise one is generated and printed once.',
      },
    }),
    log: section('Logging (pino, JSON lines on stdout).', {
      level: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], description: 'Minimum level.' },
    }),
    metrics: section('Prometheus metrics at /metrics (docs/operating.md).', {
      enabled: { type: 'boolean', description: 'Serve /metrics at all.' },
      token: {
        type: 'string',
        pattern: '^$|^.{16,}$',
        description:
          'When set (at least 16 characters), /metrics needs `Authorization: Bearer <token>`. When empty, the main listener serves /metrics to loopback callers only (and not at all with server.trust_proxy).',
      },
      port: int(
        0,
        'When not 0, /metrics is served on its own listener at server.host:port (for a scraper on a private network) and not on the main one; the token still applies when set. That listener also answers /-/health/live/ and /-/health/ready/ (unauthenticated): the health check of `idp worker`, which has no other.',
        65535,
      ),
    }),
    audit: section('The audit trail (GET /api/v3/events/audit/, idp audit list).', {
      retention_days: int(1, 'Events older than this many days are deleted by the periodic sweep.', 36500),
    }),
    api: section('Provisioning API.', {
      max_body_bytes: int(1024, 'Largest accepted JSON body; larger requests get 413.'),
      default_page_size: int(1, 'Page size when the request gives none.', 100),
      max_page_size: int(1, 'Larger page_size values are capped to this.', 1000),
    }),
    tokens: section('Default token lifetimes in seconds (applications may override).', {
      access_token_ttl: int(1, 'Access token lifetime.'),
      id_token_ttl: int(1, 'ID token lifetime.'),
      refresh_token_ttl: int(1, 'Refresh token lifetime.'),
    }),
    keys: section('ID-token signing keys (`idp keys rotate`; docs/operating.md).', {
      reload_seconds: {
        type: 'number',
        minimum: 0,
        maximum: 3600,
        description:
          'How often each `idp serve` process reads the stored key ids; when they changed (a rotation), it signs with the new active key and publishes the new set without a restart. `idp worker` checks at most this often, when it signs a logout token. 0: keys are read at start only. Fractions allowed.',
      },
    }),
    passwords: section('Password hashing and policy.', {
      bcrypt_cost: int(4, 'bcrypt cost factor.', 15),
      min_length: int(1, 'Shortest accepted password.'),
      max_length: int(1, 'Longest accepted password (bcrypt reads at most 72 bytes; longer ones are pre-hashed).', 1024),
    }),
    webhooks: section('Delivery of webhooks and backchannel logout tokens.', {
      timeout_seconds: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: 60,
        description: 'A receiver must answer within this time (spec: 5 s).',
      },
      retries: int(0, 'Attempts after the first when a receiver fails with 5xx, 429, a timeout or a connection error.', 20),
      backoff_seconds: {
        type: 'number',
        exclusiveMinimum: 0,
        description: 'First retry delay; each next one doubles (10 → 10 s, 20 s, 40 s). Fractions allowed.',
      },
      allow_insecure_loopback: {
        type: 'boolean',
        description: 'Allow http:// receivers on 127.0.0.1/localhost/[::1] (tests, local development). Everything else must be https.',
      },
      retry_after_max_seconds: int(
        0,
        'A 429 or 503 answer with Retry-After (seconds or an HTTP date) sets the delay before the next attempt instead of the backoff, capped to this many seconds. Keep it below worker.requeue_after_seconds.',
        3600,
      ),
    }),
    worker: section('Background work (BullMQ on Redis).', {
      embedded: {
        type: 'boolean',
        description:
          '`idp serve` also runs the workers and the outbox relay in-process (one process does everything). Turn off when running `idp worker` replicas.',
      },
      relay_interval_ms: int(10, 'How often the outbox relay looks for new events.', 60000),
      concurrency: int(1, 'Deliveries in flight per worker process.', 1000),
      stalled_interval_ms: int(1000, 'How soon a delivery held by a dead worker is retried.'),
      requeue_after_seconds: {
        type: 'number',
        exclusiveMinimum: 0,
        description:
          'A delivery still pending this long after its last change is queued again (its job was lost, e.g. with a Redis restart). Keep it above timeout × attempts + the backoff delays.',
      },
    }),
    mail: section('Outgoing e-mail (password-setup codes), sent by the workers through the `mail` queue.', {
      smtp_url: {
        type: 'string',
        pattern: '^(|smtps?://.+)$',
        description:
          'SMTP server, e.g. smtp://user:pass@mail.example.com:587 (STARTTLS) or smtps://…:465. Empty: messages are logged and written to <data_dir>/mail/ (development only).',
      },
      from: { type: 'string', minLength: 3, description: 'Sender address of the messages.' },
    }),
    rate_limits: section(
      'Brute-force and abuse protection (counters in Redis; while Redis is down each process keeps its own, so the limits hold per process).',
      {
        account_failures: int(
          1,
          'Failed passwords for one account from one client address within the window; further attempts from that address wait until it ends (other addresses are not locked out).',
        ),
        account_failures_all_addresses: int(
          1,
          'Failed passwords for one account from all addresses within the window (a distributed guess); further attempts wait until it ends. Password setup and reset stay open.',
        ),
        account_window_seconds: int(1, 'Window of the per-account password counters.'),
        code_mails_per_hour: int(
          1,
          'Password-setup and reset codes mailed per account per hour, one budget for both (an address without an account is counted alike and mailed nothing). Over it the page says how long to wait.',
        ),
        code_failures: int(
          1,
          'Setup and reset codes typed for one account within code_window_seconds without a right one, one budget for both pages, counted before each check. Over it codes are refused unchecked and none is mailed until the window ends.',
          100,
        ),
        code_window_seconds: int(60, 'Window of code_failures.'),
        second_factor_failures: int(
          1,
          'Second factors (TOTP and recovery codes, passkeys after the password) tried for one account within second_factor_window_seconds without a right one, counted before each check. Over it they are refused unchecked until the window ends. NIST SP 800-63B allows at most 100.',
          100,
        ),
        second_factor_window_seconds: int(60, 'Window of second_factor_failures.'),
        passkey_options_per_minute: int(
          1,
          'Passkey challenges (the options a passkey button or autofill asks for) per client IP per minute. Each sign-in may also ask for at most 20 and keeps at most 5.',
        ),
        ip_per_minute: int(
          1,
          'Failed password, code and passkey attempts (and setup or reset mails) per client IP per minute; right passwords do not count.',
        ),
        interaction_attempts: int(1, 'Second-factor and setup-code attempts per sign-in.'),
        user_code_attempts: int(
          1,
          'User codes (device sign-in at /device/) one client address may type within user_code_window_seconds, right or wrong, each counted before it is looked up; further ones are refused unchecked until the window ends.',
          1000,
        ),
        user_code_window_seconds: int(60, 'Window of user_code_attempts.'),
        api_per_minute: int(1, 'Provisioning API requests per API token per minute; further requests get 429 with Retry-After.'),
      },
    ),
    account: section('The account page at /account/ (docs/credentials.md).', {
      profile_edits: {
        type: 'boolean',
        description:
          'People may change their own name and e-mail address there (a new address takes effect, verified, once the code mailed to it is typed; the old address is told). Off: the profile is read-only and only the provisioning API changes it.',
      },
      changes_per_hour: int(1, 'Changes one person may make on the account page per hour (password, second factors, passkeys, sign-outs).'),
    }),
    admin: section('The admin console at /admin/ (docs/operating.md).', {
      group: {
        type: 'string',
        minLength: 1,
        maxLength: 150,
        description: 'Members of this group (by name) may use the console; everyone else gets a 403 page.',
      },
      require_mfa: {
        type: 'boolean',
        description:
          'The console asks for a second factor (TOTP or a passkey) at its sign-in, and enrols one when the administrator has none. false: a password is enough (not recommended).',
      },
      reauth_seconds: int(
        60,
        'Dangerous actions (deactivating people, resetting their second factors, ending their sessions) ask to sign in again when the last sign-in is older than this.',
        86_400,
      ),
      idle_seconds: int(60, 'The console signs out after this long without a request.', 86_400),
      absolute_seconds: int(300, 'The console signs out this long after its sign-in, busy or not.', 7 * 86_400),
    }),
    device_flow: section(
      'Device sign-in (RFC 8628) for applications with the urn:ietf:params:oauth:grant-type:device_code grant: a TV or command-line tool shows a code, the person types it at {base_url}/device/ (docs/integrating.md).',
      {
        code_ttl_seconds: int(
          5,
          'How long a device code and its user code last: the person has this long to type the code, sign in and allow. Polling after it answers expired_token.',
          3600,
        ),
        poll_interval_seconds: int(
          1,
          'The polling interval the device is told (interval). A poll that comes sooner than one second less than this after the last accepted one answers slow_down (the device then waits 5 s longer each time).',
          60,
        ),
      },
    ),
    landing: section('The front page at /welcome/, which anyone may open.', {
      public_applications: {
        type: 'array',
        items: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
        description:
          'Slugs of the applications the page names, with a link to each and to its discovery document. Empty: it names none (which applications exist is not for every visitor to see).',
      },
    }),
    invitations: section(
      'Invitations mailed to new colleagues (POST /api/v3/core/users/{pk}/invite/, or send_invite on create; docs/credentials.md).',
      {
        ttl_seconds: int(300, 'How long an invitation link stays valid. Sending a new one ends the old.', 90 * 86400),
        redirect: {
          type: 'string',
          pattern: '^$|^https?://',
          description:
            "Where people go once their password is set (an application's start page, say). Empty: a page that says they are done, with a link to /welcome/.",
        },
        contact: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: 'Who to ask for a new link, named on the page of an invitation that expired or was used.',
        },
      },
    ),
    i18n: section('The languages of the pages and mails (docs/i18n.md).', {
      default_locale: {
        type: 'string',
        enum: LOCALES,
        description:
          'The language of a page when nothing else names one (the switcher, ui_locales, the account, Accept-Language; docs/i18n.md).',
      },
      locales: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { type: 'string', enum: LOCALES },
        description: 'The languages offered: the switcher lists them and discovery names them (ui_locales_supported).',
      },
      overrides: {
        type: 'object',
        propertyNames: { enum: LOCALES },
        additionalProperties: { type: 'object', additionalProperties: { type: 'string', maxLength: 4000 } },
        description:
          'Your own wording for any message, by locale and key (the keys are in locales/en/*.json), e.g. {en: {"sign_in.title": "Sign in to Acme"}}. ICU message syntax.',
      },
    }),
    sources: sourcesSchema,
    applications: applicationsSchema,
  },
} as const satisfies JSONSchema;

/** The validated configuration, derived from the schema (no hand-written twin to drift). */
export type Settings = FromSchema<typeof settingsSchema>;

/** One relying party. Each gets its own issuer `{base_url}/application/o/{slug}/`. */
export type ApplicationSettings = Settings['applications'][number];

/** One upstream identity provider (docs/federation.md). */
export type SourceSettings = Settings['sources'][number];
