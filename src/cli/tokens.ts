/**
 * `idp tokens create|list|revoke`: API tokens for the provisioning API. While `idp serve` holds the embedded
 * database they go through its admin API (context.ts withRuntimeOrServer) and print the same.
 */
import type { Command } from 'commander';
import { API_SCOPES, createApiToken, revokeApiToken } from '../domain/api-tokens.js';
import { apiTokenView, type ApiTokenView } from '../api/admin-views.js';
import { ADMIN_TOKEN_OPTION, print, printTable, withRuntimeOrServer } from './context.js';

function created(view: ApiTokenView & { token: string }): void {
  print(view.token);
  process.stderr.write(`created token ${view.id} (${view.name}: ${view.scopes.join(' ')}). Store it now: it is not shown again.\n`);
}

function printTokens(views: ApiTokenView[], json: boolean | undefined): void {
  if (json) {
    print(JSON.stringify(views, null, 2));
    return;
  }
  const now = new Date();
  printTable(
    ['ID', 'STATE', 'NAME', 'SCOPES', 'EXPIRES', 'LAST USED'],
    views.map((view) => {
      const state = view.revoked_at ? 'revoked' : view.expires_at && new Date(view.expires_at) < now ? 'expired' : 'active';
      return [view.id, state, view.name, view.scopes.join(' '), view.expires_at ?? 'never', view.last_used_at ?? 'never'];
    }),
  );
}

export function tokenCommands(program: Command): void {
  const tokens = program.command('tokens').description('manage API tokens for /api/v3');

  tokens
    .command('create')
    .description('create an API token and print it once')
    .requiredOption('--name <name>', 'what the token is for')
    .requiredOption('--scope <scope...>', `one or more of: ${API_SCOPES.join(', ')}`)
    .option('--expires-in-days <days>', 'expire after this many days')
    .option(...ADMIN_TOKEN_OPTION)
    .action(async (options: { name: string; scope: string[]; expiresInDays?: string; token?: string }) => {
      const days = options.expiresInDays === undefined ? undefined : Number(options.expiresInDays);
      if (days !== undefined && !(Number.isInteger(days) && days > 0)) throw new Error('--expires-in-days must be a whole number ≥ 1');
      const scopes = options.scope.flatMap((scope) => scope.split(/[\s,]+/)).filter(Boolean);
      await withRuntimeOrServer(options.token, {
        local: async ({ store }) => {
          const expiresAt = days ? new Date(Date.now() + days * 86_400_000) : null;
          const { token, row } = await createApiToken(store, { name: options.name, scopes, expiresAt });
          created({ ...apiTokenView(row), token });
        },
        remote: async (server) =>
          created(await server.createToken({ name: options.name, scopes, ...(days ? { expires_in_days: days } : {}) })),
      });
    });

  tokens
    .command('list')
    .description('list API tokens (never their secrets)')
    .option('--json', 'print JSON')
    .option(...ADMIN_TOKEN_OPTION)
    .action(async (options: { json?: boolean; token?: string }) => {
      await withRuntimeOrServer(options.token, {
        local: async ({ store }) => printTokens((await store.apiTokens.list()).map(apiTokenView), options.json),
        remote: async (server) => printTokens(await server.listTokens(), options.json),
      });
    });

  tokens
    .command('revoke')
    .description('revoke an API token by id')
    .argument('<id>', 'token id from `tokens list`')
    .option(...ADMIN_TOKEN_OPTION)
    .action(async (id: string, options: { token?: string }) => {
      await withRuntimeOrServer(options.token, {
        local: async ({ store }) => revokeApiToken(store, id),
        remote: async (server) => server.revokeToken(id),
      });
      print(`revoked ${id}`);
    });
}
