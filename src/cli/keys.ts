/**
 * `idp keys rotate|list`: ID-token signing keys, one active key per algorithm in use. While `idp serve` holds the
 * embedded database they go through its admin API (context.ts withRuntimeOrServer) and print the same.
 */
import type { Command } from 'commander';
import { rotateSigningKeys, signingAlgsOf } from '../domain/signing-keys.js';
import { signingKeyView, type SigningKeyView } from '../api/admin-views.js';
import { ADMIN_TOKEN_OPTION, print, printTable, withRuntimeOrServer } from './context.js';

function rotated(keys: Array<{ alg: string; kid: string }>): void {
  for (const { alg, kid } of keys) print(`new active ${alg} signing key ${kid}`);
  process.stderr.write(
    'Running services sign with them once they reload their keys (keys.reload_seconds; with 0, after a restart); tokens signed by older keys still verify.\n',
  );
}

const printKeys = (views: SigningKeyView[]) =>
  printTable(
    ['KID', 'ALG', 'STATE', 'CREATED', 'RETIRED'],
    views.map((view) => [view.kid, view.alg, view.state, view.created_at, view.retired_at ?? '-']),
  );

export function keyCommands(program: Command): void {
  const keys = program.command('keys').description('manage the ID-token signing keys');

  keys
    .command('rotate')
    .description('create a new active signing key for every algorithm in use; older keys stay published in the JWKS')
    .option(...ADMIN_TOKEN_OPTION)
    .action(async (options: { token?: string }) => {
      await withRuntimeOrServer(options.token, {
        local: async ({ store }, settings) =>
          rotated(await rotateSigningKeys(store, settings.secrets.key, signingAlgsOf(settings.applications))),
        remote: async (server) => rotated((await server.rotateKeys()).keys),
      });
    });

  keys
    .command('list')
    .description('list signing keys with their algorithm (never their private parts)')
    .option(...ADMIN_TOKEN_OPTION)
    .action(async (options: { token?: string }) => {
      await withRuntimeOrServer(options.token, {
        local: async ({ store }) => printKeys((await store.signingKeys.list()).map(signingKeyView)),
        remote: async (server) => printKeys(await server.listKeys()),
      });
    });
}
