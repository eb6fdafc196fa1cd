/** `idp keys rotate|list`: ID-token signing keys. Running servers pick up a rotation when they restart. */
import type { Command } from 'commander';
import { rotateSigningKey } from '../domain/signing-keys.js';
import { print, withRuntime } from './context.js';

export function keyCommands(program: Command): void {
  const keys = program.command('keys').description('manage the ID-token signing keys');

  keys.command('rotate')
    .description('create a new active signing key; older keys stay published in the JWKS')
    .action(async () => {
      await withRuntime(async ({ store }, settings) => {
        const kid = await rotateSigningKey(store, settings.secrets.key);
        print(`new active signing key ${kid}`);
        process.stderr.write('Restart the service (every replica) to sign with it; tokens signed by older keys still verify.\n');
      });
    });

  keys.command('list')
    .description('list signing keys (never their private parts)')
    .action(async () => {
      await withRuntime(async ({ store }) => {
        for (const row of await store.signingKeys.list()) {
          print(`${row.kid}  ${row.state.padEnd(7)}  created ${row.created_at.toISOString()}${row.retired_at ? `  retired ${row.retired_at.toISOString()}` : ''}`);
        }
      });
    });
}
