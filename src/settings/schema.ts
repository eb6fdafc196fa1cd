/**
 * The one configuration schema. node-config merges config/*.yaml, environment variables and NODE_CONFIG;
 * this schema then validates the result. Each key carries its description for docs/configuration.md.
 */
export interface Settings {
  issuer: { base_url: string };
  server: { host: string; port: number; trust_proxy: boolean };
  database: { url: string; pool_size: number };
  redis: { url: string };
  data_dir: string;
  secrets: { key: string };
  bootstrap: { token: string };
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
  api: { max_body_bytes: number; default_page_size: number; max_page_size: number };
  tokens: { access_token_ttl: number; id_token_ttl: number; refresh_token_ttl: number };
  passwords: { bcrypt_cost: number; min_length: number; max_length: number };
}

const int = (minimum: number, description: string, maximum?: number) =>
  ({ type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }), description }) as const;

const section = (description: string, properties: Record<string, object>) => ({
  type: 'object',
  description,
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

export const settingsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['issuer', 'server', 'database', 'redis', 'data_dir', 'secrets', 'bootstrap', 'log', 'api', 'tokens', 'passwords'],
  properties: {
    issuer: section('Public identity of the service.', {
      base_url: {
        type: 'string',
        pattern: '^https?://[^/?#]+(/[^?#]*)?$',
        description: 'Public origin (and optional path prefix) of the service, e.g. https://id.example.com. Issuers and API pagination links are built from it, never from the Host header.',
      },
    }),
    server: section('HTTP listener.', {
      host: { type: 'string', minLength: 1, description: 'Interface to listen on.' },
      port: int(0, 'TCP port (0 = any free port).', 65535),
      trust_proxy: { type: 'boolean', description: 'Trust X-Forwarded-* headers from a reverse proxy.' },
    }),
    database: section('System of record.', {
      url: {
        type: 'string',
        pattern: '^$|^postgres(ql)?://',
        description: 'PostgreSQL URL (postgres://user:pass@host:5432/db). Empty runs the embedded PGlite database in <data_dir>/db.',
      },
      pool_size: int(1, 'PostgreSQL connections per process.', 200),
    }),
    redis: section('Queues and rate-limit counters.', {
      url: { type: 'string', pattern: '^$|^rediss?://', description: 'Redis URL.' },
    }),
    data_dir: { type: 'string', minLength: 1, description: 'Folder for the embedded database, the generated secret key and local mail.' },
    secrets: section('Encryption of secrets at rest.', {
      key: {
        type: 'string',
        pattern: '^$|^.{32,}$',
        description: 'At least 32 characters (e.g. `openssl rand -hex 32`). Required in production; elsewhere an empty key is generated into <data_dir>/secret.key.',
      },
    }),
    bootstrap: section('First start.', {
      token: {
        type: 'string',
        pattern: '^$|^.{32,}$',
        description: 'When set (at least 32 characters) and the database has no API token yet, it becomes an API token with every scope. Otherwise one is generated and printed once.',
      },
    }),
    log: section('Logging (pino, JSON lines on stdout).', {
      level: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], description: 'Minimum level.' },
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
    passwords: section('Password hashing and policy.', {
      bcrypt_cost: int(4, 'bcrypt cost factor.', 15),
      min_length: int(1, 'Shortest accepted password.'),
      max_length: int(1, 'Longest accepted password (bcrypt reads at most 72 bytes; longer ones are pre-hashed).', 1024),
    }),
  },
} as const;
