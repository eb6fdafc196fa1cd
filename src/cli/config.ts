/** `idp config check|reference` and `idp secrets generate`: configuration helpers for operators. */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { configDir, loadSettings } from '../settings/load.js';
import { configReference } from '../settings/reference.js';
import { print } from './context.js';

export function configCommands(program: Command): void {
  const config = program.command('config').description('inspect configuration');

  config
    .command('check')
    .description('load and validate the configuration; exit 1 listing every problem')
    .action(async () => {
      const settings = await loadSettings({ readOnly: true });
      const apps = settings.applications.map((app) => app.slug).join(', ') || 'none';
      print(
        `configuration is valid (NODE_ENV=${process.env.NODE_ENV ?? 'development'}; database: ${settings.database.url ? 'postgres' : 'embedded PGlite'}; public URL: ${settings.issuer.base_url}; applications: ${apps})`,
      );
    });

  program
    .command('secrets')
    .description('secrets for configuration')
    .command('generate')
    .description('print a random 32-byte secret (hex) for secrets.key, client or webhook secrets')
    .action(() => {
      print(randomBytes(32).toString('hex'));
    });

  config
    .command('reference')
    .description('print the configuration reference as Markdown (docs/configuration.md)')
    .action(() => {
      print(configReference(configDir!).trimEnd());
    });
}
