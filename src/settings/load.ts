/**
 * Loads configuration: node-config merges config/default.yaml, config/{NODE_ENV}.yaml, config/local.yaml,
 * the variables of config/custom-environment-variables.yaml and NODE_CONFIG; then the schema validates it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, validateSettings } from './validate.js';
import type { Settings } from './schema.js';
import { ensureSecretKey } from './secret-key.js';

export { ConfigError } from './validate.js';
export type { Settings } from './schema.js';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Also correct when running from dist/src/settings. */
export const configDir = [path.join(packageRoot, 'config'), path.join(packageRoot, '../config')].find((dir) =>
  existsSync(path.join(dir, 'default.yaml')),
);

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

export function deepMerge(base: Plain, override: Plain): Plain {
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(override)) {
    out[key] = isPlain(value) && isPlain(base[key]) ? deepMerge(base[key] as Plain, value) : value;
  }
  return out;
}

async function readNodeConfig(): Promise<Plain> {
  process.env.NODE_CONFIG_DIR ??= configDir;
  process.env.SUPPRESS_NO_CONFIG_WARNING ??= 'y';
  let config;
  try {
    ({ default: config } = await import('config'));
  } catch (error) {
    // node-config throws on unreadable YAML, NODE_CONFIG that is not JSON, or an environment variable of the wrong
    // shape: one line, naming the variable in our words rather than node-config's parser internals.
    const first = (error as Error).message.split('\n')[0]!;
    const variable = /__format parser error in (\w+)/.exec(first)?.[1];
    throw new ConfigError(
      variable
        ? `config: ${variable}=${JSON.stringify(process.env[variable] ?? '')} is not a valid value (expected JSON, e.g. a number or true/false)`
        : `config: ${first}`,
    );
  }
  return config.util.toObject() as Plain;
}

export interface LoadOptions {
  /** Merged over the loaded configuration before validation (tests, CLI flags). */
  overrides?: Plain;
  /** Skip generating <data_dir>/secret.key (commands that never touch secrets). */
  readOnly?: boolean;
}

export async function loadSettings(options: LoadOptions = {}): Promise<Settings> {
  const raw = deepMerge(await readNodeConfig(), options.overrides ?? {});
  const settings = validateSettings(raw);
  settings.issuer.base_url = settings.issuer.base_url.replace(/\/+$/, '');
  if (process.env.NODE_ENV === 'production') {
    if (!settings.secrets.key) throw new ConfigError('config: secrets.key is required in production (set SECRET_KEY)');
    if (!settings.database.url) throw new ConfigError('config: database.url is required in production (set DATABASE_URL)');
  }
  if (!settings.secrets.key && !options.readOnly) settings.secrets.key = ensureSecretKey(settings.data_dir);
  return settings;
}
