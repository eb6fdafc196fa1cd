#!/usr/bin/env node
/** `idp`: the command-line entry. Failures end with one readable line and exit code 1, never a stack trace. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { ConfigError } from './settings/load.js';
import { ValidationError, NotFoundError } from './errors.js';
import { EmbeddedDatabaseBusy } from './store/embedded-lock.js';
import { serve } from './cli/serve.js';
import { tokenCommands } from './cli/tokens.js';
import { configCommands } from './cli/config.js';
import { deliveryCommands } from './cli/deliveries.js';
import { userCommands } from './cli/users.js';
import { groupCommands } from './cli/groups.js';
import { keyCommands } from './cli/keys.js';
import { webhookCommands } from './cli/webhooks.js';
import { auditCommands } from './cli/audit.js';
import { doctorCommands } from './cli/doctor.js';
import { scimCommands } from './cli/scim.js';
import { withRuntime, print } from './cli/context.js';
import { migrations } from './store/migrate.js';

/** package.json's version: beside src/ when run from source, two levels up when built into dist/src/. */
function packageVersion(): string {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'identity-service' && pkg.version) return pkg.version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}

const version = packageVersion();
const program = new Command('idp').description('OpenID Connect identity provider').version(version).showHelpAfterError();

program
  .command('serve')
  .description('run the web service (OIDC, API, health)')
  .option('--port <port>', 'override server.port')
  .option('--host <host>', 'override server.host')
  .action(serve);

program
  .command('worker')
  .description('run the outbox relay and the delivery workers (webhooks, backchannel logout, SCIM provisioning)')
  .action(async () => (await import('./cli/worker.js')).worker());

program
  .command('migrate')
  .description('apply database migrations and exit')
  .action(async () => {
    // openRuntime migrates; this command reports what it did.
    await withRuntime(async ({ database, applied }) => {
      const latest = Object.keys(migrations).at(-1);
      if (!applied.length) return print(`nothing to apply: the database (${database.engine}) already has the latest schema (${latest})`);
      print(
        `applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to the database (${database.engine}): ${applied.join(', ')}`,
      );
    });
  });

tokenCommands(program);
configCommands(program);
deliveryCommands(program);
userCommands(program);
groupCommands(program);
keyCommands(program);
webhookCommands(program);
auditCommands(program);
doctorCommands(program);
scimCommands(program);

function explain(error: unknown): string {
  if (error instanceof ConfigError || error instanceof EmbeddedDatabaseBusy) return error.message;
  if (error instanceof ValidationError) return `invalid input: ${error.message}`;
  if (error instanceof NotFoundError) return error.message;
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'ECONNREFUSED') return `cannot reach the database: ${message}`;
  if (code === 'EADDRINUSE') return `the port is already in use: ${message}`;
  return `error: ${message ?? String(error)}`;
}

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(explain(error) + '\n');
  if (process.env.LOG_LEVEL === 'debug') console.error(error);
  process.exit(1);
});
