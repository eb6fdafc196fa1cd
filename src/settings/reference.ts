/**
 * Renders the configuration reference (docs/configuration.md) from the one schema, config/default.yaml and
 * the environment mapping, so the docs cannot drift from what the loader accepts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { load as parseYaml } from 'js-yaml';
import { settingsSchema } from './schema.js';
import { describeRule } from './validate.js';

type Node = {
  type?: string;
  description?: string;
  properties?: Record<string, Node>;
  items?: Node;
  default?: unknown;
  required?: readonly string[];
};
type Plain = Record<string, unknown>;

function envNames(mapping: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  for (const [key, value] of Object.entries((mapping ?? {}) as Plain)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(name, value);
    else if (value && typeof value === 'object' && '__name' in value) out.set(name, String((value as Plain).__name));
    else envNames(value, name, out);
  }
  return out;
}

const show = (value: unknown) => (value === undefined ? '' : value === '' ? '(empty)' : `\`${JSON.stringify(value)}\``);

export function configReference(configDir: string): string {
  const defaults = parseYaml(readFileSync(path.join(configDir, 'default.yaml'), 'utf8')) as Plain;
  const env = envNames(parseYaml(readFileSync(path.join(configDir, 'custom-environment-variables.yaml'), 'utf8')));
  const rows: string[] = [];
  const walk = (node: Node, key: string, defaultValue: unknown, isRequired = false) => {
    if (node.type === 'object' && node.properties) {
      if (key && node.description) rows.push(`| **\`${key}\`** | | | | ${node.description} |`);
      // The required keys of a list's entries (applications[], sources[]) say so; sections' keys all have defaults.
      const listEntry = key.endsWith('[]');
      for (const [name, child] of Object.entries(node.properties))
        walk(
          child,
          key ? `${key}.${name}` : name,
          (defaultValue as Plain | undefined)?.[name] ?? child.default,
          listEntry && (node.required ?? []).includes(name),
        );
      return;
    }
    if (node.type === 'array' && node.items?.properties) {
      rows.push(`| **\`${key}[]\`** | list | ${show(defaultValue)} | | ${node.description ?? ''} |`);
      walk(node.items, `${key}[]`, undefined);
      return;
    }
    const pattern = (node as { pattern?: string }).pattern;
    const rule = (
      node.type === 'string' && pattern ? `text matching \`${pattern}\`` : describeRule(node as Plain).replace(/^must (be )?/, '')
    ).replace(/\|/g, '\\|');
    const required = isRequired ? ' (required)' : '';
    rows.push(
      `| \`${key}\` | ${rule}${required} | ${show(defaultValue)} | ${env.get(key) ? `\`${env.get(key)}\`` : ''} | ${(node.description ?? '').replace(/\|/g, '\\|')} |`,
    );
  };
  walk(settingsSchema as unknown as Node, '', defaults);
  return [
    '# Configuration reference',
    '',
    'Generated from `src/settings/schema.ts` by `npm run idp -- config reference > docs/configuration.md`; a test fails when it',
    'is out of date. Sources, later ones winning: `config/default.yaml`, `config/{NODE_ENV}.yaml`, `config/local.yaml`,',
    'the environment variables below (each also as `<NAME>_FILE`, the path of a file holding the value), then `NODE_CONFIG`',
    '(JSON; one that is not JSON stops the start). Every problem stops the process, one line each naming the key and the',
    'rule in words, e.g. `config: tokens.access_token_ttl must be an integer ≥ 1`.',
    '',
    '| key | value | default | env | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
