/** `idp tokens create|list|revoke`: API tokens for the provisioning API. */
import type { Command } from 'commander';
import { API_SCOPES, createApiToken, revokeApiToken } from '../domain/api-tokens.js';
import { print, withRuntime } from './context.js';

export function tokenCommands(program: Command): void {
  const tokens = program.command('tokens').description('manage API tokens for /api/v3');

  tokens.command('create')
    .description('create an API token and print it once')
    .requiredOption('--name <name>', 'what the token is for')
    .requiredOption('--scope <scope...>', `one or more of: ${API_SCOPES.join(', ')}`)
    .option('--expires-in-days <days>', 'expire after this many days')
    .action(async (options: { name: string; scope: string[]; expiresInDays?: string }) => {
      const days = options.expiresInDays === undefined ? undefined : Number(options.expiresInDays);
      if (days !== undefined && !(Number.isInteger(days) && days > 0)) throw new Error('--expires-in-days must be a whole number ≥ 1');
      const scopes = options.scope.flatMap((scope) => scope.split(/[\s,]+/)).filter(Boolean);
      await withRuntime(async ({ store }) => {
        const expiresAt = days ? new Date(Date.now() + days * 86_400_000) : null;
        const { token, row } = await createApiToken(store, { name: options.name, scopes, expiresAt });
        print(token);
        process.stderr.write(`created token ${row.id} (${row.name}: ${row.scopes.join(' ')}). Store it now: it is not shown again.\n`);
      });
    });

  tokens.command('list')
    .description('list API tokens (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      await withRuntime(async ({ store }) => {
        const rows = await store.apiTokens.list();
        if (options.json) return print(JSON.stringify(rows, null, 2));
        for (const row of rows) {
          const state = row.revoked_at ? 'revoked' : row.expires_at && row.expires_at < new Date() ? 'expired' : 'active';
          print(`${row.id}  ${state.padEnd(7)}  ${row.name}  [${row.scopes.join(' ')}]  last used ${row.last_used_at?.toISOString() ?? 'never'}`);
        }
      });
    });

  tokens.command('revoke')
    .description('revoke an API token by id')
    .argument('<id>', 'token id from `tokens list`')
    .action(async (id: string) => {
      await withRuntime(async ({ store }) => {
        await revokeApiToken(store, id);
        print(`revoked ${id}`);
      });
    });
}
