/**
 * The environment's part of the configuration, checked before node-config reads it: node-config only warns about
 * a NODE_CONFIG that is not JSON (and then runs without it), and stops at the first variable of the wrong shape.
 * Here every such problem is found, each in one line naming the variable. Also here: `<NAME>_FILE`, the path of a
 * file holding the value of a mapped variable (container secrets, e.g. SECRET_KEY_FILE=/run/secrets/secret_key).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { load as parseYaml } from 'js-yaml';

type Plain = Record<string, unknown>;

export interface MappedVariable {
  /** The environment variable, e.g. PORT. */
  name: string;
  /** node-config's `__format` (json: the value is parsed as JSON). */
  format?: string;
}

/** The variables config/custom-environment-variables.yaml maps to keys. */
export function mappedVariables(configDir: string): MappedVariable[] {
  const out: MappedVariable[] = [];
  const walk = (node: unknown) => {
    for (const value of Object.values((node ?? {}) as Plain)) {
      if (typeof value === 'string') out.push({ name: value });
      else if (value && typeof value === 'object' && '__name' in value) {
        const { __name, __format } = value as { __name: unknown; __format?: unknown };
        out.push({ name: String(__name), format: typeof __format === 'string' ? __format : undefined });
      } else walk(value);
    }
  };
  walk(parseYaml(readFileSync(path.join(configDir, 'custom-environment-variables.yaml'), 'utf8')));
  return out;
}

/** A file's content as a variable's value: one trailing line break dropped (editors and `echo` add one). */
const fileValue = (file: string) => readFileSync(file, 'utf8').replace(/\r?\n$/, '');

/**
 * The value of `name`, from the variable itself or from the file `<name>_FILE` names; a problem when both are set
 * or the file cannot be read. Used for mapped variables and for the variables that client_secret_env and secret_env
 * name, so every secret can come from a file.
 */
export function environmentValue(name: string, env: NodeJS.ProcessEnv = process.env): { value?: string; problem?: string } {
  const file = env[`${name}_FILE`];
  if (!file) return { value: env[name] };
  if (env[name]) return { problem: `config: ${name} and ${name}_FILE are both set; keep one` };
  try {
    return { value: fileValue(file) };
  } catch (error) {
    const { code } = error as { code?: string };
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : code;
    return { problem: `config: ${name}_FILE=${file} cannot be read (${why ?? (error as Error).message})` };
  }
}

/** Where JSON.parse stopped, never the input itself (it may hold a secret); undefined when the text is JSON. */
function jsonProblem(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const position = /at position (\d+)/.exec((error as Error).message)?.[1];
    return position === undefined ? 'not valid JSON' : `not valid JSON (it goes wrong at character ${Number(position) + 1})`;
  }
}

/**
 * Checks NODE_CONFIG and the mapped variables, and puts the content of each `<NAME>_FILE` into `<NAME>` so that
 * node-config reads it like any variable. Returns every problem (empty: node-config may read the environment).
 */
export function prepareEnvironment(configDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const problems: string[] = [];
  for (const { name, format } of mappedVariables(configDir)) {
    const { value, problem } = environmentValue(name, env);
    if (problem) {
      problems.push(problem);
      continue;
    }
    if (env[`${name}_FILE`] && value !== undefined) env[name] = value;
    if (format === 'json' && value && jsonProblem(value)) {
      const shown = env[`${name}_FILE`] ? `${name}_FILE (${env[`${name}_FILE`]})` : `${name}=${JSON.stringify(value)}`;
      problems.push(`config: ${shown} is not a valid value (expected JSON, e.g. a number or true/false)`);
    }
  }
  const nodeConfig = env.NODE_CONFIG;
  if (nodeConfig !== undefined && nodeConfig.trim() !== '') {
    const problem = jsonProblem(nodeConfig);
    if (problem) problems.push(`config: NODE_CONFIG is ${problem}`);
    else {
      const parsed = JSON.parse(nodeConfig) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        problems.push('config: NODE_CONFIG must be a JSON object, e.g. {"server": {"port": 9000}}');
    }
  }
  return problems;
}
