// Jest globalSetup: build the migrated PGlite template once per run (see build-template.ts).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default function globalSetup() {
  execFileSync(process.execPath, ['--import', 'tsx', 'test/helpers/build-template.ts'], { cwd: root, stdio: 'inherit' });
}
