/**
 * The layers of docs/architecture.md, read from the imports of every file in src/ and jobs/: imports point inward
 * only, the web rooms never import each other, and the domain reaches Koa, Redis and mail only through its ports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/paths.js';

/** Each top-level part of src/ (a folder or a file) and jobs/, by the layer it belongs to. */
const LAYERS = {
  leaf: [
    'errors.ts',
    'i18n',
    'settings',
    'request-scope.ts',
    'uuid.ts',
    'loopback.ts',
    'batch-calls.ts',
    'observability',
    'saml-metadata.ts',
  ],
  store: ['store'],
  domain: ['domain'],
  infrastructure: ['infra', 'queue'],
  floor: ['http', 'pages'],
  // A room of several parts: the sign-in pages and their upstream sources; the account page and the admin console.
  'room api': ['api'],
  'room scim': ['scim'],
  'room sign-in': ['interactions', 'sources'],
  'room account': ['account', 'admin'],
  'room oidc': ['oidc'],
  jobs: ['jobs'],
  composition: ['service.ts', 'server.ts', 'render-errors.ts', 'runtime.ts'],
  entry: ['main.ts', 'cli'],
} as const;
type Layer = keyof typeof LAYERS;

const ROOMS = Object.keys(LAYERS).filter((layer) => layer.startsWith('room ')) as Layer[];
const BELOW_THE_WEB: Layer[] = ['leaf', 'store', 'domain'];

/** What each layer may import (its own layer always). The store's types (`import type`) are everyone's above it. */
const MAY_IMPORT = {
  ...(Object.fromEntries(ROOMS.map((room) => [room, [...BELOW_THE_WEB, 'floor']])) as Record<Layer, Layer[]>),
  leaf: [],
  store: ['leaf'],
  domain: ['leaf', 'store'],
  infrastructure: BELOW_THE_WEB,
  floor: BELOW_THE_WEB,
  jobs: [...BELOW_THE_WEB, 'infrastructure'],
  // The composition root builds every part (the serving process may run the worker's jobs too).
  composition: (Object.keys(LAYERS) as Layer[]).filter((layer) => layer !== 'entry'),
  entry: Object.keys(LAYERS) as Layer[],
} satisfies Record<Layer, Layer[]>;

/** The store's own code is for the domain; above it, only the engine's storage adapter uses it directly. */
const STORE_CODE_ALLOWED = /^src\/oidc\/engine-storage\//;

/** Packages the domain and the store never use: the domain's ports keep Koa, the engine, Redis and mail out of them. */
const PACKAGES_OUT_OF: Array<{ layers: Layer[]; packages: RegExp }> = [
  { layers: ['store', 'domain'], packages: /^(koa|@koa\/|oidc-provider$|ioredis$|rate-limiter-flexible$|nodemailer$|bullmq$)/ },
];

const partOf = (file: string) => {
  const [top, second] = file.split('/');
  return top === 'jobs' ? 'jobs' : second!;
};
const layerOf = (file: string): Layer => {
  const part = partOf(file);
  const layer = (Object.keys(LAYERS) as Layer[]).find((name) => (LAYERS[name] as readonly string[]).includes(part));
  if (!layer) throw new Error(`${file}: ${part} is in no layer of this test (add it, and to docs/architecture.md)`);
  return layer;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every static import and re-export, and every dynamic import of a literal path. */
function importsOf(file: string): Import[] {
  const source = readFileSync(path.join(ROOT, file), 'utf8');
  const found: Import[] = [];
  for (const match of source.matchAll(/^(?:import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/gms)) {
    found.push({ from: file, to: match[2] ?? match[3]!, typeOnly: Boolean(match[1]) });
  }
  return found;
}

const files = [...sourceFiles('src'), ...sourceFiles('jobs')];
const imports = files.flatMap(importsOf);
const local = (target: Import) => path.posix.normalize(path.posix.join(path.posix.dirname(target.from), target.to)).replace(/\.js$/, '.ts');

describe('the layers of docs/architecture.md', () => {
  test('the scan reads the tree: every file has a layer, and imports are found', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(files.map(layerOf).length).toBe(files.length);
    expect(imports.filter((each) => each.to.startsWith('.')).length).toBeGreaterThan(1000);
  });

  test('imports point inward only, and the web rooms never import each other', () => {
    const wrong = imports
      .filter((each) => each.to.startsWith('.'))
      .flatMap((each) => {
        const [from, to] = [layerOf(each.from), layerOf(local(each))];
        if (from === to) return [];
        if (to === 'store' && (each.typeOnly || STORE_CODE_ALLOWED.test(each.from)) && from !== 'leaf') return [];
        return (MAY_IMPORT[from] as readonly Layer[]).includes(to) ? [] : [`${each.from} (${from}) imports ${local(each)} (${to})`];
      });
    expect(wrong).toEqual([]);
  });

  test('the domain and the store use no Koa, engine, Redis, queue or mail package', () => {
    const wrong = imports.flatMap((each) =>
      PACKAGES_OUT_OF.filter((rule) => rule.layers.includes(layerOf(each.from)) && rule.packages.test(each.to)).map(
        () => `${each.from} imports ${each.to}`,
      ),
    );
    expect(wrong).toEqual([]);
  });

  test('nothing imports the entry, and only the entry and the composition root import the composition root', () => {
    const wrong = imports
      .filter((each) => each.to.startsWith('.'))
      .filter((each) => {
        const to = layerOf(local(each));
        const from = layerOf(each.from);
        return (to === 'entry' && from !== 'entry') || (to === 'composition' && from !== 'entry' && from !== 'composition');
      })
      .map((each) => `${each.from} imports ${local(each)}`);
    expect(wrong).toEqual([]);
  });
});
