// Completes package-lock.json with entries for other platforms' optional binaries (@swc/core-darwin-*, …).
// This workplace's npm registry serves only this platform's binaries, so `npm install` cannot record the
// others, and `npm ci` then refuses the lockfile ("Missing: … from lock file"). An entry with just a version
// and `optional: true` satisfies `npm ci`, which skips optional packages it cannot fetch.
// Run after every `npm install <pkg>`: `npm run lock:complete`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const added = [];
for (const [path, meta] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (packages[nested] || packages[hoisted]) continue;
    packages[hoisted] = { version: spec.replace(/^[\^~=]/, ''), ...(meta.dev ? { dev: true } : {}), optional: true };
    added.push(`${name}@${packages[hoisted].version}`);
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(file, JSON.stringify({ ...lock, packages: sorted }, null, 2) + '\n');
console.log(`package-lock.json: ${added.length} optional platform entries added`);
