/**
 * Loads configuration: node-config merges config/default.yaml, config/{NODE_ENV}.yaml, config/local.yaml,
 * the variables of config/custom-environment-variables.yaml (each also as `<NAME>_FILE`) and NODE_CONFIG; then the
 * schema validates it. Every problem is reported at once; a NODE_CONFIG that is not JSON is one (node-config itself
 * would only warn and go on without it).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, validateSettings } from './validate.js';
import type { Settings } from './schema.js';
import { ensureSecretKey } from './secret-key.js';
import { prepareEnvironment } from './environment.js';

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

interface ConfigSource {
  name: string;
  parsed?: unknown;
}

/** node-config's merge of the files, the mapped variables and NODE_CONFIG, and where each part came from. */
async function readNodeConfig(): Promise<{ values: Plain; sources: ConfigSource[] }> {
  process.env.NODE_CONFIG_DIR ??= configDir;
  process.env.SUPPRESS_NO_CONFIG_WARNING ??= 'y';
  const problems = prepareEnvironment(process.env.NODE_CONFIG_DIR!);
  if (problems.length) throw new ConfigError(problems);
  let config;
  try {
    ({ default: config } = await import('config'));
  } catch (error) {
    throw new ConfigError(nodeConfigProblem((error as Error).message));
  }
  return { values: config.util.toObject() as Plain, sources: config.util.getConfigSources() as ConfigSource[] };
}

/**
 * node-config's complaint in our words: a file it cannot parse is named with the parser's whole explanation (a YAML
 * error's snippet of the lines around the mistake included); anything else by its first line.
 */
function nodeConfigProblem(message: string): string {
  const unparsable = /^Cannot parse config file: '([^']+)': (?:\w*Error: |YAMLException: )?([\s\S]*)$/.exec(message);
  if (unparsable) {
    const [, file, why] = unparsable;
    const [first, ...snippet] = why!.trimEnd().split('\n');
    const relative = path.relative(process.cwd(), file!);
    const shown = relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
    return [`config: ${shown} cannot be parsed: ${first}`, ...snippet].join('\n');
  }
  const variable = /__format parser error in (\w+)/.exec(message)?.[1];
  return variable
    ? `config: ${variable}=${JSON.stringify(process.env[variable] ?? '')} is not a valid value (expected JSON, e.g. a number or true/false)`
    : `config: ${message.split('\n')[0]}`;
}

export interface LoadOptions {
  /** Merged over the loaded configuration before validation (tests, CLI flags). */
  overrides?: Plain;
  /** Skip generating <data_dir>/secret.key (commands that never touch secrets). */
  readOnly?: boolean;
}

/** Settings whose public URL nobody configured: outside production it follows the listener (see followTheListener). */
const followingTheListener = new WeakSet<Settings>();

/** Whether issuer.base_url was left unset (outside production), so `idp serve` may set it from the port it listens on. */
export const publicUrlFollowsListener = (settings: Settings) => followingTheListener.has(settings);

/** http://localhost:PORT for a listener on a loopback or wildcard address; else its own address. */
export function listenerOrigin(host: string, port: number): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const local = ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost'].includes(bare);
  const name = local ? 'localhost' : bare.includes(':') ? `[${bare}]` : bare;
  return `http://${name}:${port}`;
}

/**
 * config/default.yaml's issuer.base_url (http://localhost:9000) only fits a listener on port 9000. When no other
 * source sets it, outside production, the public URL follows server.port (PORT=9411 → http://localhost:9411): the
 * pages' redirects then reach this process. Port 0 is known once listening (`idp serve` sets it then).
 */
function followTheListener(settings: Settings, sources: ConfigSource[], overrides: Plain): void {
  if (process.env.NODE_ENV === 'production') return;
  const sets = (values: unknown) => (values as { issuer?: { base_url?: unknown } } | undefined)?.issuer?.base_url !== undefined;
  const defaults = path.join(process.env.NODE_CONFIG_DIR ?? configDir ?? '', 'default.yaml');
  if (sets(overrides) || sources.some((source) => path.resolve(source.name) !== path.resolve(defaults) && sets(source.parsed))) return;
  followingTheListener.add(settings);
  if (settings.server.port !== 0) settings.issuer.base_url = listenerOrigin(settings.server.host, settings.server.port);
}

/** Production needs what the embedded default generates or embeds: an explicit key and database. */
function productionProblems(raw: Plain): string[] {
  if (process.env.NODE_ENV !== 'production') return [];
  const value = (section: string, key: string) => (raw[section] as Plain | undefined)?.[key];
  return [
    ...(value('secrets', 'key') ? [] : ['config: secrets.key is required in production (set SECRET_KEY)']),
    ...(value('database', 'url') ? [] : ['config: database.url is required in production (set DATABASE_URL)']),
  ];
}

export async function loadSettings(options: LoadOptions = {}): Promise<Settings> {
  const { values, sources } = await readNodeConfig();
  const raw = deepMerge(values, options.overrides ?? {});
  let settings: Settings | undefined;
  const problems: string[] = [];
  try {
    settings = validateSettings(raw);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  problems.push(...productionProblems(raw));
  if (problems.length || !settings) throw new ConfigError(problems);
  settings.issuer.base_url = settings.issuer.base_url.replace(/\/+$/, '');
  followTheListener(settings, sources, options.overrides ?? {});
  if (!settings.secrets.key && !options.readOnly) settings.secrets.key = ensureSecretKey(settings.data_dir);
  return settings;
}
