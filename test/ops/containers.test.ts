/**
 * The container files (Dockerfile, .dockerignore, compose.yaml), checked without a Docker engine: parsed, then held
 * against the repository (package.json, tsconfig, config/*.yaml) and, where a command is inside, by running it: the
 * image's health check against a live health router, and the compose environment through the real settings loader.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Koa from 'koa';
import { CORE_SCHEMA, load as parseYaml, mergeTag } from 'js-yaml';
import { healthRouter, type ReadinessCheck } from '../../src/observability/health.js';
import { ROOT } from '../helpers/paths.js';
import { freePort } from '../helpers/ports.js';
import { testSettings } from '../helpers/settings.js';
import { startMetricsServer } from '../../src/observability/serve-metrics.js';

type Plain = Record<string, unknown>;
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const readYaml = (file: string) => parseYaml(read(file)) as Plain;

// --- Dockerfile ---------------------------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

/** Instructions in order: comments (and parser directives) dropped, `\` continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (!line && !pending)) continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1).trim() + ' ';
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (!full) continue;
    const [, keyword, args] = /^(\S+)\s*(.*)$/s.exec(full)!;
    instructions.push({ keyword: keyword!.toUpperCase(), args: args!.trim() });
  }
  if (pending.trim()) throw new Error('Dockerfile ends inside a line continuation');
  return instructions;
}

function stagesOf(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [, image, name] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args)!;
      stages.push({ image: image!, name, instructions: [] });
    } else {
      if (!stages.length) throw new Error(`${instruction.keyword} before the first FROM`);
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);
const indexOf = (stage: Stage, predicate: (i: Instruction) => boolean) => stage.instructions.findIndex(predicate);

/** `["node", "-e", "…"]` (exec form) → its words. */
function execForm(args: string): string[] {
  const words = JSON.parse(args) as unknown;
  if (!Array.isArray(words) || !words.every((word) => typeof word === 'string')) throw new Error(`not an exec form: ${args}`);
  return words;
}

interface Copy {
  from?: string;
  sources: string[];
  destination: string;
}
function copiesOf(stage: Stage): Copy[] {
  return all(stage, 'COPY').map(({ args }) => {
    const words = args.trim().startsWith('[') ? execForm(args) : args.split(/\s+/);
    const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
    const paths = words.filter((word) => !word.startsWith('--'));
    return { from, sources: paths.slice(0, -1), destination: paths.at(-1)! };
  });
}

/** `ENV A=1 B="two words"` → { A: '1', B: 'two words' } (the key=value form only). */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of all(stage, 'ENV')) {
    for (const [, key, quoted, plain] of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S*))/g)) env[key!] = quoted ?? plain ?? '';
  }
  return env;
}

function workdirOf(stage: Stage, before = stage.instructions.length): string {
  let dir = '/';
  for (const { keyword, args } of stage.instructions.slice(0, before)) if (keyword === 'WORKDIR') dir = path.posix.resolve(dir, args);
  return dir;
}

/** An image pinned to an exact version (x.y or x.y.z, any variant) or to a digest: never a moving major tag. */
const pinned = (image: string) => /@sha256:[0-9a-f]{64}$/.test(image) || /:\d+\.\d+(\.\d+)?(-[a-z0-9.-]+)?$/.test(image);

const dockerfile = stagesOf(parseDockerfile(read('Dockerfile')));
const runtime = dockerfile.at(-1)!;
const packageJson = JSON.parse(read('package.json')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};
const defaults = readYaml('config/default.yaml') as { server: { port: number }; data_dir: string };

/** node-config's mapping of keys to environment variables, flattened: 'server.port' → 'PORT'. */
function mappedVariables(mapping: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  for (const [key, value] of Object.entries((mapping ?? {}) as Plain)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(name, value);
    else if (value && typeof value === 'object' && '__name' in value) out.set(name, String((value as Plain).__name));
    else mappedVariables(value, name, out);
  }
  return out;
}
const variables = mappedVariables(readYaml('config/custom-environment-variables.yaml'));

/** The service's own code (src/ and jobs/, what the image compiles), concatenated. */
const codeText = () =>
  ['src', 'jobs']
    .flatMap((dir) =>
      (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[])
        .filter((file) => file.endsWith('.ts'))
        .map((file) => read(path.join(dir, file))),
    )
    .join('\n');

/** Packages the code imports at run time (`import type` is erased by the build). */
function runtimeImports(code: string): Set<string> {
  const names = new Set<string>();
  for (const [, typeOnly, from, dynamic] of code.matchAll(
    /\bimport\s+(type\s+)?[^'";]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    const specifier = from ?? dynamic!;
    if (typeOnly || specifier.startsWith('.') || specifier.startsWith('node:')) continue;
    names.add(
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
  }
  return names;
}

/** A .dockerignore pattern as a regular expression: matches the path itself and everything under it. */
function globToRegExp(pattern: string): RegExp {
  const parts = pattern.split(/(\*\*\/|\*\*|\*|\?)/).map((part) => {
    if (part === '**/') return '(?:.*/)?';
    if (part === '**') return '.*';
    if (part === '*') return '[^/]*';
    if (part === '?') return '[^/]';
    return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${parts.join('')}(?:/.*)?$`);
}

/** Runs `node -e <script>` as the container would (the script reads PORT); resolves with its exit code. */
function runNode(script: string, env: Record<string, string>): Promise<number | null> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_OPTIONS;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', script], { env: childEnv, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** A Koa app serving only the real health router, on a free loopback port. */
async function healthServer(checks: ReadinessCheck[]): Promise<{ port: number; close(): Promise<void> }> {
  const app = new Koa();
  app.use(healthRouter(checks).routes());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Dockerfile', () => {
  test('builds in one stage and runs in another, every stage on Node 22 LTS (oidc-provider 9 supports 22 and later), pinned', () => {
    expect(dockerfile.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile) {
      const major = /^node:(\d+)(?:[.-]|$)/.exec(stage.image)?.[1];
      expect({ image: stage.image, major, pinned: pinned(stage.image) }).toEqual({ image: stage.image, major: '22', pinned: true });
    }
    expect(runtime.image).toMatch(/^node:22\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
    expect(new Set(dockerfile.map((stage) => stage.image)).size).toBe(1); // build and run on the same Node
  });

  test('tsx is a dev dependency: the runtime stage installs without it and checks that it did', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean; dependencies?: object }> };
    expect(Object.keys((JSON.parse(read('package.json')) as { dependencies: object }).dependencies)).not.toContain('tsx');
    expect(packageJson.devDependencies.tsx).toBeDefined();
    for (const name of ['tsx', 'esbuild']) expect({ name, dev: lock.packages[`node_modules/${name}`]?.dev }).toEqual({ name, dev: true });
    expect(Object.keys(lock.packages['']!.dependencies ?? {})).not.toContain('tsx');
    const install = all(runtime, 'RUN').find((i) => /\bnpm ci\b.*--omit=dev/.test(i.args))!;
    expect(install.args).toMatch(/test ! -e node_modules\/tsx/);
    expect(packageJson.scripts.start).toContain('tsx'); // `npm start` in a checkout still runs the sources
  });

  test('the build stage installs every dependency, copies what tsconfig.build.json compiles, and runs the build', () => {
    const build = dockerfile.find(
      (stage) => stage.name && runtime.instructions.some((i) => i.keyword === 'COPY' && i.args.includes(`--from=${stage.name}`)),
    );
    expect(build).toBeDefined();
    const runs = all(build!, 'RUN').map((i) => i.args);
    const install = indexOf(build!, (i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
    const compile = indexOf(build!, (i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args));
    expect(install).toBeGreaterThanOrEqual(0);
    expect(compile).toBeGreaterThan(install);
    expect(runs.join('\n')).not.toMatch(/--omit=dev|--production/); // TypeScript is a dev dependency

    // What `npm run build` reads must be in the stage before it runs.
    expect(packageJson.scripts.build).toMatch(/^tsc -p (\S+)$/);
    const tsconfigFile = /^tsc -p (\S+)$/.exec(packageJson.scripts.build)![1]!;
    const tsconfig = JSON.parse(read(tsconfigFile)) as { extends?: string; include: string[] };
    const needed = [
      tsconfigFile,
      ...(tsconfig.extends ? [path.posix.normalize(tsconfig.extends)] : []),
      ...tsconfig.include,
      'package.json',
      'package-lock.json',
    ];
    const copied = new Set(
      build!.instructions
        .slice(0, compile)
        .filter((i) => i.keyword === 'COPY')
        .flatMap((i) => copiesOf({ ...build!, instructions: [i] })[0]!.sources.map((source) => path.posix.normalize(source))),
    );
    for (const file of needed) expect({ file, copied: copied.has(file) }).toEqual({ file, copied: true });
  });

  test('the runtime stage installs production dependencies only, then adds dist/, config/ and views/ beside them', () => {
    const install = indexOf(runtime, (i) => i.keyword === 'RUN' && /\bnpm ci\b.*--omit=dev/.test(i.args));
    expect(install).toBeGreaterThanOrEqual(0);
    const copies = copiesOf(runtime);
    const manifests = copies.findIndex((copy) => copy.sources.includes('package.json') && copy.sources.includes('package-lock.json'));
    expect(manifests).toBeGreaterThanOrEqual(0);
    expect(indexOf(runtime, (i) => i.keyword === 'COPY' && i.args.includes('package-lock.json'))).toBeLessThan(install);

    // The code finds config/ and views/ two levels above dist/src/* (src/settings/load.ts, src/pages/render-page.ts).
    const workdir = workdirOf(runtime);
    const destination = (source: string, from?: string) => {
      const copy = copies.find((c) => c.from === from && c.sources.some((s) => path.posix.basename(path.posix.normalize(s)) === source));
      return copy && path.posix.resolve(workdir, copy.destination);
    };
    expect(destination('dist', 'build')).toBe(path.posix.join(workdir, 'dist'));
    expect(destination('config')).toBe(path.posix.join(workdir, 'config'));
    expect(destination('views')).toBe(path.posix.join(workdir, 'views'));
    expect(existsSync(path.join(ROOT, 'views', 'layout.eta'))).toBe(true);
    expect(existsSync(path.join(ROOT, 'views', 'static', 'style.css'))).toBe(true);
  });

  test('the code the image runs imports no devDependency (`npm ci --omit=dev` leaves them out)', () => {
    const imported = runtimeImports(codeText());
    expect(imported.has('koa')).toBe(true); // the scan sees imports at all
    expect(runtimeImports("import type { X } from 'jest';\nimport { y } from 'jose';\nawait import('fast-check');")).toEqual(
      new Set(['jose', 'fast-check']),
    );
    expect([...imported].filter((name) => name in packageJson.devDependencies)).toEqual([]);
  });

  test("runs `serve` from the package's bin entry, as a user other than root, with NODE_ENV=production", () => {
    const cmd = all(runtime, 'CMD').at(-1);
    expect(cmd).toBeDefined();
    expect(execForm(cmd!.args)).toEqual(['node', packageJson.bin.idp, 'serve']);
    expect(packageJson.bin.idp).toBe('dist/src/main.js');

    const user = all(runtime, 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user!.split(':')[0]).not.toMatch(/^(root|0)$/);
    expect(indexOf(runtime, (i) => i.keyword === 'USER')).toBeLessThan(indexOf(runtime, (i) => i.keyword === 'CMD'));
    expect(envOf(runtime).NODE_ENV).toBe('production');
  });

  test('exposes the configured default port and declares the data directory a volume the user may write', () => {
    expect(all(runtime, 'EXPOSE').flatMap((i) => i.args.split(/\s+/))).toEqual([String(defaults.server.port)]);

    const env = envOf(runtime);
    expect(variables.get('data_dir')).toBe('IDP_DATA_DIR');
    const dataDir = path.posix.resolve(workdirOf(runtime), env.IDP_DATA_DIR ?? defaults.data_dir);
    const volumes = all(runtime, 'VOLUME').flatMap((i) => (i.args.startsWith('[') ? execForm(i.args) : i.args.split(/\s+/)));
    expect(volumes).toContain(dataDir);
    const user = all(runtime, 'USER').at(-1)!.args.split(':')[0]!;
    expect(all(runtime, 'RUN').some((i) => new RegExp(`chown (-R )?${user}(:${user})? ${dataDir}\\b`).test(i.args))).toBe(true);
    // The embedded listener default (127.0.0.1) would not be reachable from outside the container.
    expect(env.HOST).toBe('0.0.0.0');
  });

  test('every path copied from the build context exists and is not excluded by .dockerignore', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    const sources = dockerfile.flatMap((stage) =>
      copiesOf(stage)
        .filter((copy) => !copy.from)
        .flatMap((copy) => copy.sources),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect({ source, exists: existsSync(path.join(ROOT, source)) }).toEqual({ source, exists: true });
      const normalized = path.posix.normalize(source);
      const excludedBy = ignored.filter(
        (pattern) => !pattern.startsWith('!') && globToRegExp(pattern.replace(/^\/+|\/+$/g, '')).test(normalized),
      );
      expect({ source, excludedBy }).toEqual({ source, excludedBy: [] });
    }
  });

  test('the health check asks /-/health/live/ with node itself: 0 while the service answers, 1 when it does not', async () => {
    const healthcheck = all(runtime, 'HEALTHCHECK').at(-1);
    expect(healthcheck).toBeDefined();
    const [, command] = /\bCMD\s+(\[.*\])$/s.exec(healthcheck!.args)!;
    const words = execForm(command!);
    expect(words.slice(0, 2)).toEqual(['node', '-e']);
    expect(words[2]).toContain('/-/health/live/');
    expect(words[2]).toContain(String(defaults.server.port)); // the default when PORT is not set
    expect(healthcheck!.args).not.toMatch(/\b(curl|wget)\b/); // neither is in the slim image

    const down: ReadinessCheck = { name: 'database', check: () => Promise.reject(new Error('down')) };
    const server = await healthServer([down]); // live answers even while a dependency is down
    try {
      expect(await runNode(words[2]!, { PORT: String(server.port) })).toBe(0);
    } finally {
      await server.close();
    }
    expect(await runNode(words[2]!, { PORT: String(server.port) })).toBe(1); // nothing listens any more
  });
});

describe('.dockerignore and .gitignore', () => {
  test('keeps dependencies, builds, local data, secrets and version control out of the build context', () => {
    const patterns = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim().replace(/^\/+|\/+$/g, ''));
    for (const pattern of ['node_modules', 'dist', 'var', '.git', '.env', 'config/local*.yaml', 'var-backup-*'])
      expect(patterns).toContain(pattern);
  });

  test('backups of the data directory (they hold secret.key) are never committed', () => {
    const ignored = read('.gitignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    const matches = (file: string) => ignored.some((pattern) => globToRegExp(pattern.replace(/^\/+|\/+$/g, '')).test(file));
    expect(matches('var-backup-2026-11-27/secret.key')).toBe(true); // `cp -a var var-backup-$(date +%F)`
    expect(matches('var/secret.key')).toBe(true);
  });
});

// --- compose.yaml ---------------------------------------------------------------------------------------------------

/** Compose's interpolation: $$, $NAME, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}, ${NAME:+alt}. */
function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(
    /\$(?:(\$)|([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|)/g,
    (match, escaped, bare, name, operator, operand) => {
      if (escaped) return '$';
      if (bare) return env[bare] ?? '';
      if (!name) throw new Error(`invalid interpolation in ${JSON.stringify(value)}`);
      const current = env[name];
      if (operand) operand = interpolate(operand, env); // compose interpolates defaults and messages too
      const unset = operator?.startsWith(':') ? !current : current === undefined;
      switch (operator) {
        case undefined:
          return current ?? '';
        case ':-':
        case '-':
          return unset ? operand : current!;
        case ':?':
        case '?':
          if (unset) throw new Error(`${name}: ${operand}`);
          return current!;
        case ':+':
        case '+':
          return unset ? '' : operand;
        default:
          throw new Error(`invalid interpolation ${match}`);
      }
    },
  );
}

function interpolateDeep(value: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') return interpolate(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolateDeep(item, env));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateDeep(v, env)]));
  return value;
}

interface Service {
  image?: string;
  build?: string | { context: string };
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: string[] | string; disable?: boolean };
}
const composeText = read('compose.yaml');
// Merge keys (`<<: *anchor`) as compose reads them; js-yaml 5's default schema leaves them out.
const compose = parseYaml(composeText, { schema: CORE_SCHEMA.withTags(mergeTag) }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
/** What compose reads from .env: the secret key and the database password (everything else has a default). */
const dotEnv = { SECRET_KEY: 'a'.repeat(64), POSTGRES_PASSWORD: 'p'.repeat(32) };

function environmentOf(service: Service, env: Record<string, string | undefined> = dotEnv): Record<string, string> {
  const raw = Array.isArray(service.environment)
    ? Object.fromEntries(service.environment.map((entry) => [entry.split('=')[0], entry.split('=').slice(1).join('=')]))
    : (service.environment ?? {});
  return Object.fromEntries(Object.entries(raw).map(([key, value]) => [key, interpolate(String(value ?? ''), env)]));
}

/** config/ as the image has it: .dockerignore keeps a developer's config/local*.yaml out. */
function imageConfigDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'idp-image-config-'));
  for (const file of readdirSync(path.join(ROOT, 'config')).filter((name) => !/^local/.test(name)))
    copyFileSync(path.join(ROOT, 'config', file), path.join(dir, file));
  return dir;
}

/** Loads the settings in a fresh process with the given environment only (and no inherited configuration). */
function effectiveSettings(env: Record<string, string>): Promise<{ code: number | null; settings?: Plain; stderr: string }> {
  const configDir = imageConfigDir();
  const childEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_CONFIG_DIR: configDir, ...env };
  const script =
    "const { loadSettings } = await import('./src/settings/load.ts'); process.stdout.write(JSON.stringify(await loadSettings({ readOnly: true })));";
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => {
      rmSync(configDir, { recursive: true, force: true });
      resolve({ code, stderr, settings: code === 0 ? (JSON.parse(stdout) as Plain) : undefined });
    });
  });
}

describe('compose.yaml', () => {
  test('runs postgres, redis, the web service and a worker', () => {
    expect(Object.keys(services).sort()).toEqual(['app', 'postgres', 'redis', 'worker']);
    expect(services.postgres!.image).toMatch(/^postgres:16\./);
    expect(services.redis!.image).toMatch(/^redis:7\./);
    for (const name of ['postgres', 'redis']) expect({ name, pinned: pinned(services[name]!.image!) }).toEqual({ name, pinned: true });
    for (const name of ['app', 'worker']) {
      expect(services[name]!.build).toBe('.');
      expect(services[name]!.image).toBe(services.app!.image);
    }
    expect(services.app!.command).toEqual(['node', packageJson.bin.idp, 'serve']);
    expect(services.worker!.command).toEqual(['node', packageJson.bin.idp, 'worker']);
  });

  test('every ${…} is valid interpolation, and neither the secret key nor the database password has a default', () => {
    expect(() => interpolateDeep(compose, dotEnv)).not.toThrow();
    expect(() => environmentOf(services.app!, { POSTGRES_PASSWORD: dotEnv.POSTGRES_PASSWORD })).toThrow(/SECRET_KEY/);
    for (const name of ['app', 'worker', 'postgres'])
      expect(() => environmentOf(services[name]!, { SECRET_KEY: dotEnv.SECRET_KEY })).toThrow(/POSTGRES_PASSWORD/);
    expect(composeText).not.toMatch(/POSTGRES_PASSWORD:-/);
    expect(() => interpolate('$(openssl rand -hex 32)', {})).toThrow(/invalid interpolation/); // what compose rejects
  });

  test('the databases have health checks, and app and worker wait until both are healthy', () => {
    expect(services.postgres!.healthcheck!.test).toEqual(expect.arrayContaining(['pg_isready']));
    expect(services.redis!.healthcheck!.test).toEqual(expect.arrayContaining(['redis-cli', 'ping']));
    for (const name of ['app', 'worker']) {
      expect(services[name]!.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    }
    // The system of record survives `docker compose down` (a named volume); Redis holds nothing that is not in it.
    expect(services.postgres!.volumes).toContain('postgres-data:/var/lib/postgresql/data');
    expect(Object.keys(compose.volumes ?? {})).toContain('postgres-data');
    expect(services.redis!.command).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction'])); // BullMQ loses jobs otherwise
  });

  test('app publishes the configured port and is healthy only when ready; the worker publishes none', async () => {
    const port = String(defaults.server.port);
    expect(services.app!.ports).toHaveLength(1);
    expect(services.app!.ports![0]!.split(':').at(-1)).toBe(port);
    expect(services.worker!.ports).toBeUndefined();

    const test = services.app!.healthcheck!.test as string[];
    expect(test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    expect(test[3]).toContain(`http://127.0.0.1:${port}/-/health/ready/`);
    const script = test[3]!.replace(`127.0.0.1:${port}/`, '127.0.0.1:PORT/');
    let redisUp = true;
    const server = await healthServer([
      {
        name: 'redis',
        check: async () => {
          if (!redisUp) throw new Error('down');
        },
      },
    ]);
    try {
      const at = script.replace('PORT', String(server.port));
      expect(await runNode(at, {})).toBe(0);
      redisUp = false; // /-/health/ready/ answers 503
      expect(await runNode(at, {})).toBe(1);
    } finally {
      await server.close();
    }
  });

  test("the worker's health check asks its metrics listener for readiness: 0 while its database and Redis answer, 1 when not", async () => {
    const test = services.worker!.healthcheck!.test as string[];
    expect(test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    const port = environmentOf(services.worker!).METRICS_PORT!;
    expect(test[3]).toContain(`http://127.0.0.1:${port}/-/health/ready/`);
    expect(environmentOf(services.app!).METRICS_PORT).toBeUndefined(); // app keeps /metrics on its main listener

    // The worker's own listener (src/service.ts, startWorkerService), on a free port in place of METRICS_PORT.
    let redisUp = true;
    const settings = await testSettings({ metrics: { enabled: true, token: '', port: await freePort() } });
    const server = (await startMetricsServer(settings, [
      { name: 'database', check: async () => {} },
      {
        name: 'redis',
        check: async () => {
          if (!redisUp) throw new Error('down');
        },
      },
    ]))!;
    try {
      const script = test[3]!.replace(`127.0.0.1:${port}/`, `127.0.0.1:${settings.metrics.port}/`);
      expect(await runNode(script, {})).toBe(0);
      redisUp = false;
      expect(await runNode(script, {})).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('app and worker: read-only root, no capabilities, data (mail) in a named volume, not an anonymous one', () => {
    for (const name of ['app', 'worker']) {
      const service = services[name]! as Service & { read_only?: boolean; cap_drop?: string[]; security_opt?: string[]; tmpfs?: string[] };
      expect({ name, read_only: service.read_only, cap_drop: service.cap_drop }).toEqual({ name, read_only: true, cap_drop: ['ALL'] });
      expect(service.security_opt).toContain('no-new-privileges:true');
      // The image's VOLUME /app/var would be a fresh anonymous volume per container: mail files lost on re-creation.
      const dataVolume = service.volumes?.find((volume) => volume.split(':')[1] === envOf(runtime).IDP_DATA_DIR);
      expect(dataVolume).toBeDefined();
      expect(Object.keys(compose.volumes ?? {})).toContain(dataVolume!.split(':')[0]);
    }
  });

  test('app and worker set only variables the configuration maps or the code reads', () => {
    const readByCode = new Set([...codeText().matchAll(/process\.env\.([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!));
    const known = new Set([...variables.values(), ...readByCode, 'NODE_CONFIG' /* node-config itself */]);
    expect(readByCode.has('NODE_ENV')).toBe(true);
    for (const name of ['app', 'worker']) {
      const names = Object.keys(environmentOf(services[name]!));
      expect(names.length).toBeGreaterThan(0);
      const unknown = names.filter((variable) => !known.has(variable));
      expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
    }
  });

  test("with the image's environment, app's and worker's settings load in production: PostgreSQL, Redis, no in-process workers", async () => {
    for (const name of ['app', 'worker']) {
      const env = { ...envOf(runtime), ...environmentOf(services[name]!) }; // compose's environment wins over the image's ENV
      const { code, settings, stderr } = await effectiveSettings(env);
      expect({ service: name, code, stderr: code === 0 ? '' : stderr }).toEqual({ service: name, code: 0, stderr: '' });
      expect(settings).toMatchObject({
        database: { url: expect.stringMatching(/^postgres:\/\/[^@]+@postgres:5432\//) },
        redis: { url: 'redis://redis:6379' },
        secrets: { key: dotEnv.SECRET_KEY },
        worker: { embedded: false },
        server: { host: '0.0.0.0', port: defaults.server.port, trust_proxy: false, proxy_hops: 1 },
        data_dir: envOf(runtime).IDP_DATA_DIR,
      });
    }
  }, 60_000);
});
